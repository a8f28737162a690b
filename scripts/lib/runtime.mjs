// The Node the platform runs and is tested on: the `node` package pinned in the root
// package.json's devDependencies, installed from the npm registry like any other
// dependency (node_modules/node/bin/node). `npm start`, `npm test` and `npm run bench` are
// started by whatever Node the machine has; once the dependencies are installed they go on
// in a child process on the pinned Node, so the services, jest, the tools and the build all
// run on the line the images use.
// Node builtins only: this runs before `npm install`.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './profiles.mjs';

const RUNTIME_BIN_DIR = path.join(REPO_ROOT, 'node_modules', 'node', 'bin');
const RUNTIME_BINARY = path.join(RUNTIME_BIN_DIR, 'node');

/** The pinned version, e.g. `24.21.0`. */
export function pinnedNodeVersion() {
  const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  const version = manifest.devDependencies?.node;
  if (!/^\d+\.\d+\.\d+$/.test(version ?? ''))
    throw new Error(`package.json must pin devDependencies.node to an exact version, not ${version}`);
  return version;
}

export const onPinnedNode = () => process.version === `v${pinnedNodeVersion()}`;

/**
 * Returns at once on the pinned Node. Otherwise runs this same script, with the same
 * arguments, on the pinned Node and exits with its exit code: this process only waits.
 * Its PATH starts with the pinned Node's folder, so `npm`, `npx` and the tools they start
 * run on it too.
 */
export async function continueOnPinnedNode() {
  if (onPinnedNode()) return;
  const version = pinnedNodeVersion();
  if (!existsSync(RUNTIME_BINARY))
    throw new Error(`Node ${version} is not in node_modules (the \`node\` package): run npm install`);
  console.log(`↻ continuing on Node ${version} (started on ${process.version})`);
  const child = spawn(RUNTIME_BINARY, [...process.execArgv, process.argv[1], ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, PATH: `${RUNTIME_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  // Ctrl-C reaches the whole foreground process group, the child included, and the child
  // stops what it started; a SIGTERM sent to this process alone is passed on.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  const exitCode = await new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`✘ could not start Node ${version}: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal === 'SIGINT' ? 130 : 143)));
  });
  process.exit(exitCode);
}
