// The npm workspace: dependencies and the turbo build.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './profiles.mjs';
import { run } from './processes.mjs';

const INSTALL_TIMEOUT_MS = 15 * 60_000;
const BUILD_TIMEOUT_MS = 15 * 60_000;

// turbo asks to send telemetry on first use; nothing leaves this machine.
const TOOL_ENV = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };

const mtimeMs = (file) => statSync(file).mtimeMs;

/** Why dependencies must be installed, or null when node_modules matches the lockfile. */
function installReason() {
  const lockfile = path.join(REPO_ROOT, 'package-lock.json');
  const installed = path.join(REPO_ROOT, 'node_modules', '.package-lock.json');
  if (!existsSync(lockfile)) return 'no package-lock.json';
  if (!existsSync(installed)) return 'node_modules missing';
  if (mtimeMs(lockfile) > mtimeMs(installed)) return 'package-lock.json changed';
  return null;
}

/**
 * Installs when node_modules is missing or older than the lockfile. `npm install`, not
 * `npm ci`: the registry reachable here does not serve every platform's build of
 * @swc/core and turbo (optional dependencies), so the lockfile cannot list them and
 * `npm ci` refuses it as out of sync. `npm install` keeps the locked versions and skips
 * optional packages it cannot have.
 */
export async function ensureNpmDependencies({ logFile }) {
  const reason = installReason();
  if (!reason) return 'npm dependencies up to date';
  await run('npm', ['install', '--no-audit', '--no-fund'], {
    cwd: REPO_ROOT, env: TOOL_ENV, logFile, timeoutMs: INSTALL_TIMEOUT_MS,
  });
  return `npm install done (${reason})`;
}

export async function buildAll({ logFile }) {
  await run('npx', ['turbo', 'run', 'build'], { cwd: REPO_ROOT, env: TOOL_ENV, logFile, timeoutMs: BUILD_TIMEOUT_MS });
  return 'built';
}
