// Runs one of the standalone bench scripts (bench/ledger.mjs, bench/webhook-delivery.mjs) as
// a child process, bounded, and reads the JSON it wrote to bench/results/.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/profiles.mjs';

export const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');
const CHILD_TIMEOUT_MS = 20 * 60_000;

/** `timeoutMs`: how long the child may run before it is stopped (a seeded history takes longer). */
export async function childBench(script, prefix, env, { timeoutMs = CHILD_TIMEOUT_MS } = {}) {
  const startedAtMs = Date.now();
  const exitCode = await new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bench', script)], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: 'inherit',
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });
  if (exitCode !== 0) throw new Error(`${script} exited with ${exitCode}`);
  const newest = readdirSync(RESULTS_DIR)
    .filter((name) => name.startsWith(prefix))
    .map((name) => path.join(RESULTS_DIR, name))
    .filter((file) => statSync(file).mtimeMs >= startedAtMs)
    .sort((left, right) => statSync(right).mtimeMs - statSync(left).mtimeMs)[0];
  if (!newest) throw new Error(`${script} wrote no ${prefix}*.json`);
  return JSON.parse(readFileSync(newest, 'utf8'));
}
