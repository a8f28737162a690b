/**
 * The code is formatted as Prettier formats it (.prettierrc.json: 120 columns) and lints
 * clean under eslint.config.mjs: typescript-eslint's recommended rules, no
 * import cycle, no service reaching into another's files, no library importing a service, and
 * the layering (use cases and the domain never see the transport or generated gRPC code; the
 * domain never sees persistence or adapters). Runs the real CLI offline, over every tracked
 * TypeScript source (generated code and build output are ignored by the config).
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const REPO_ROOT = join(__dirname, '..', '..');
const LINT_TIMEOUT_MS = 300_000;
/** Problems shown in a failure; the count is always given. */
const SHOWN_PROBLEMS_MAX = 40;
const LINTED = ['services', 'libs', 'tools', 'proto/src', 'bench', 'scripts'];
const FORMATTED = LINTED.map((folder) => `${folder}/**/*.{ts,js,mjs,cjs}`);

/**
 * What no source may cite: partners never see the issue tracker or the internal notes on the contract, and a
 * reader should not need them, so a comment states the rule itself. Tracked sources and protos, generated code aside.
 */
const CITATIONS = [/\bissues? #?\d+/i, /\bspec(ification)? section\b/i, /\bcontract[- ]decisions?\b/i];
/**
 * A numbered section of the internal notes (the word spec, then a dotted number). Landed migrations are snapshots,
 * never edited, and one predates this rule, so they are left out of this pattern alone.
 */
const SECTION_NUMBER = /\bspec(ification)? \d+\.\d+/i;
const SNAPSHOT = /\/migrations\//;
const CITATION_CHECKED = /\.(ts|js|mjs|cjs|proto)$/;

interface LintResult {
  filePath: string;
  messages: { line: number; ruleId: string | null; message: string }[];
}

const require = createRequire(__filename);

function eslintBin(): string {
  const manifest = require.resolve('eslint/package.json');
  const { bin } = require(manifest) as { bin: Record<string, string> };
  return join(dirname(manifest), bin.eslint);
}

function prettierBin(): string {
  const manifest = require.resolve('prettier/package.json');
  const { bin } = require(manifest) as { bin: Record<string, string> | string };
  return join(dirname(manifest), typeof bin === 'string' ? bin : bin.prettier);
}

/** The files Prettier would change (`--list-different`), repository-relative; .prettierignore says what is left alone. */
function runPrettier(): Promise<{ code: number; unformatted: string[]; text: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      // The cache (node_modules/.cache/prettier) skips files whose content and options it already checked.
      [prettierBin(), '--list-different', '--cache', '--cache-strategy', 'content', ...FORMATTED],
      {
        cwd: REPO_ROOT,
        timeout: LINT_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const unformatted = stdout
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean);
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, unformatted, text: stderr });
      },
    );
  });
}

function runEslint(): Promise<{ code: number; results: LintResult[] | null; text: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [eslintBin(), '--format', 'json', '--no-warn-ignored', ...LINTED],
      {
        cwd: REPO_ROOT,
        timeout: LINT_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        let results: LintResult[] | null = null;
        try {
          results = JSON.parse(stdout) as LintResult[];
        } catch {
          /* reported with the text */
        }
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          results,
          text: `${stdout.slice(0, 2_000)}${stderr}`,
        });
      },
    );
  });
}

/** `file:line text` for every line of a tracked source that cites an issue or a section of the internal notes. */
function citations(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z', '--', ...LINTED, 'proto'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => CITATION_CHECKED.test(file) && !file.includes('/gen/'));
  return tracked.flatMap((file) =>
    readFileSync(join(REPO_ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, index) =>
        CITATIONS.some((pattern) => pattern.test(line)) || (!SNAPSHOT.test(file) && SECTION_NUMBER.test(line))
          ? [`${file}:${index + 1} ${line.trim()}`]
          : [],
      ),
  );
}

describe('the code', () => {
  // Both tools read every file and each uses one core: they run at once, each test awaiting its own.
  let prettier: ReturnType<typeof runPrettier>;
  let eslint: ReturnType<typeof runEslint>;

  beforeAll(() => {
    prettier = runPrettier();
    eslint = runEslint();
  });

  it(
    'is formatted as Prettier formats it (npx prettier --write fixes it)',
    async () => {
      const run = await prettier;
      if (run.unformatted.length > 0) {
        throw new Error(
          `${run.unformatted.length} file(s) not formatted:\n${run.unformatted.slice(0, SHOWN_PROBLEMS_MAX).join('\n')}`,
        );
      }
      if (run.code !== 0) throw new Error(`prettier failed (exit ${run.code}):\n${run.text}`);
    },
    LINT_TIMEOUT_MS,
  );

  it(
    'lints clean under eslint.config.mjs',
    async () => {
      const run = await eslint;
      if (!run.results) throw new Error(`eslint did not answer (exit ${run.code}):\n${run.text}`);
      const problems = run.results.flatMap((file) =>
        file.messages.map(
          (message) =>
            `${file.filePath.slice(REPO_ROOT.length + 1)}:${message.line} ${message.ruleId ?? 'parse'}: ${message.message}`,
        ),
      );
      if (problems.length > 0) {
        throw new Error(`${problems.length} lint problem(s):\n${problems.slice(0, SHOWN_PROBLEMS_MAX).join('\n')}`);
      }
      expect(run.code).toBe(0);
    },
    LINT_TIMEOUT_MS,
  );

  it('cites no issue number and no section of the internal notes: comments say the thing itself', () => {
    expect(citations()).toEqual([]);
  });

  it('tracks no generated code: src/gen is made by codegen from the protos', () => {
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\0');
    expect(tracked.filter((file) => file.includes('/src/gen/'))).toEqual([]);
  });
});
