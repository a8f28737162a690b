// The stack scripts are ES modules run by plain Node, so they are tested as Node runs them:
// in child processes.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const REPO_ROOT = join(__dirname, '..', '..');
const PINNED = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).devDependencies.node as string;
const PINNED_BINARY = join(REPO_ROOT, 'node_modules', 'node', 'bin', 'node');
const moduleUrl = (name: string) => pathToFileURL(join(__dirname, name)).href;

/** A Node on this machine other than the pinned one (the Debian package's), if there is one. */
function otherNode(): string | null {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      if (execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim() !== `v${PINNED}`) return candidate;
    } catch {
      // not installed there
    }
  }
  return null;
}

describe('the pinned Node', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'runtime-spec-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('is an exact version installed from the registry, and the one jest runs on under npm test', () => {
    expect(PINNED).toMatch(/^\d+\.\d+\.\d+$/);
    expect(execFileSync(PINNED_BINARY, ['--version'], { encoding: 'utf8' }).trim()).toBe(`v${PINNED}`);
    if (process.env.TEST_STACK_FILE !== undefined || process.env.npm_lifecycle_event === 'test')
      expect(process.version).toBe(`v${PINNED}`);
  });

  it('a script started on another Node goes on, with its arguments, on the pinned one and exits with its code', () => {
    const script = join(folder, 'script.mjs');
    writeFileSync(
      script,
      `import { continueOnPinnedNode } from '${moduleUrl('runtime.mjs')}';
await continueOnPinnedNode();
console.log(JSON.stringify({ version: process.version, args: process.argv.slice(2), path: process.env.PATH.split(':')[0] }));
process.exit(7);
`,
    );
    const node = otherNode() ?? PINNED_BINARY;
    const result = spawnSync(node, [script, 'one', 'two'], { encoding: 'utf8' });
    expect(result.status).toBe(7);
    const lines = result.stdout.trim().split('\n');
    const report = JSON.parse(lines[lines.length - 1]);
    expect(report).toEqual({ version: `v${PINNED}`, args: ['one', 'two'], path: expect.any(String) });
    if (node !== PINNED_BINARY) {
      expect(lines[0]).toBe(
        `↻ continuing on Node ${PINNED} (started on ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()})`,
      );
      // npm and npx started by the script run on the pinned Node too.
      expect(report.path).toBe(join(REPO_ROOT, 'node_modules', 'node', 'bin'));
    } else {
      expect(lines).toHaveLength(1);
    }
  });
});

describe('tracked files changed by a run', () => {
  let repo: string;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  const snapshot = () =>
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
import { trackedChanges } from '${moduleUrl('tracked-files.mjs')}';
console.log(JSON.stringify([...trackedChanges(process.argv[1])]));`,
        repo,
      ],
      { encoding: 'utf8' },
    );
  const changed = (before: string, after: string) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `
import { changedBetween } from '${moduleUrl('tracked-files.mjs')}';
console.log(JSON.stringify(changedBetween(new Map(JSON.parse(process.argv[1])), new Map(JSON.parse(process.argv[2])))));`,
          before,
          after,
        ],
        { encoding: 'utf8' },
      ),
    );

  beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), 'tracked-spec-'));
    git('init', '-q');
    writeFileSync(join(repo, 'package-lock.json'), '{}\n');
    writeFileSync(join(repo, 'edited.ts'), 'one\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'start');
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it('names a tracked file the run rewrote, not one already edited before it that the run left alone', () => {
    writeFileSync(join(repo, 'edited.ts'), "a developer's own edit\n");
    const before = snapshot();
    writeFileSync(join(repo, 'untracked.log'), 'output\n');
    expect(changed(before, snapshot())).toEqual([]);
    writeFileSync(join(repo, 'package-lock.json'), '{"rewritten":true}\n');
    expect(changed(before, snapshot())).toEqual(['package-lock.json']);
  });

  it('names a file edited before the run that the run changed again, or restored', () => {
    writeFileSync(join(repo, 'edited.ts'), 'edit\n');
    const before = snapshot();
    writeFileSync(join(repo, 'edited.ts'), 'one\n');
    expect(changed(before, snapshot())).toEqual(['edited.ts']);
  });
});
