// The stack scripts are ES modules run by plain Node, so they are tested as Node runs them:
// in child processes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const PROCESSES_URL = pathToFileURL(join(__dirname, 'processes.mjs')).href;

describe('run', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'processes-spec-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  // A command that cannot start makes its child emit 'error' and then 'close': the log file
  // was closed once per event, and the second close threw EBADF out of the event handler,
  // killing the script instead of refusing the one command.
  it('refuses a command that cannot start, once, and the caller lives on', () => {
    const logFile = join(folder, 'command.log');
    const script = join(folder, 'script.mjs');
    writeFileSync(
      script,
      `import { run } from ${JSON.stringify(PROCESSES_URL)};
try {
  await run(${JSON.stringify(join(folder, 'no-such-command'))}, ['x'], { logFile: ${JSON.stringify(logFile)} });
  console.log('resolved');
} catch (error) {
  console.log('refused: ' + error.message);
}
await new Promise((resolve) => setTimeout(resolve, 200));
console.log('alive');
`,
    );
    const child = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 30_000 });
    expect(child.stderr).not.toContain('EBADF');
    expect(child.status).toBe(0);
    const lines = child.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^refused: .*no-such-command.*ENOENT/);
    expect(lines[1]).toBe('alive');
    expect(readFileSync(logFile, 'utf8')).toContain('no-such-command x');
  });
});
