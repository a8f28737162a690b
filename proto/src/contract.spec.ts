/**
 * The protos lint clean (buf lint, buf.yaml's rules) and change without breaking a peer that
 * runs the main branch's release (buf breaking, per package, against the main branch's
 * protos from git). Both run the buf binary shipped in its npm package: nothing is
 * downloaded.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PROTO_DIR = join(__dirname, '..');
const BUF_TIMEOUT_MS = 120_000;
const BASE_BRANCH = 'main';

function runBuf(args: string[]): Promise<{ code: number; text: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [require.resolve('@bufbuild/buf/bin/buf'), ...args],
      { cwd: PROTO_DIR, timeout: BUF_TIMEOUT_MS },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, text: `${stdout}${stderr}` }),
    );
  });
}

/** The repository's git folder (the shared one, from a worktree too), if it has the base branch. */
function gitDirWithBaseBranch(): string | null {
  try {
    const gitDir = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
      cwd: PROTO_DIR,
      encoding: 'utf8',
    }).trim();
    execFileSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${BASE_BRANCH}`], {
      cwd: PROTO_DIR,
      stdio: 'ignore',
    });
    return gitDir;
  } catch {
    return null;
  }
}

describe('the service contracts (protos)', () => {
  it(
    'lint clean under buf.yaml',
    async () => {
      const output = await runBuf(['lint']);
      if (output.code !== 0) throw new Error(`buf lint failed:\n${output.text}`);
    },
    BUF_TIMEOUT_MS,
  );

  it(
    `break nothing a peer on the ${BASE_BRANCH} branch relies on`,
    async () => {
      const gitDir = gitDirWithBaseBranch();
      // A copy without git history (an unpacked release) has nothing to compare with.
      if (gitDir === null) {
        console.warn(`buf breaking skipped: no git repository with a ${BASE_BRANCH} branch`);
        return;
      }
      const output = await runBuf(['breaking', '--against', `${gitDir}#branch=${BASE_BRANCH},subdir=proto`]);
      if (output.code !== 0) throw new Error(`buf breaking against ${BASE_BRANCH} failed:\n${output.text}`);
    },
    BUF_TIMEOUT_MS,
  );

  it(
    'refuses a deleted RPC (the check is live)',
    async () => {
      // The protos copied with one RPC removed must fail the same check against these.
      const copy = mkdtempSync(join(tmpdir(), 'buf-breaking-'));
      try {
        cpSync(PROTO_DIR, copy, {
          recursive: true,
          filter: (source) => !/node_modules|[/\\](src|dist|scripts)$/.test(source),
        });
        const ledgerProto = join(copy, 'ledger', 'v1', 'ledger.proto');
        const withoutPostEntry = readFileSync(ledgerProto, 'utf8').replace(/^\s*rpc PostEntry\b[^;]*;\s*$/m, '');
        expect(withoutPostEntry).not.toMatch(/rpc PostEntry\b/);
        writeFileSync(ledgerProto, withoutPostEntry);
        const output = await runBuf(['breaking', copy, '--against', '.']);
        expect(output.code).not.toBe(0);
        expect(output.text).toMatch(/Previously present RPC "PostEntry" on service "Ledger" was deleted/);
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    },
    BUF_TIMEOUT_MS,
  );
});
