// Installing, building, starting and testing must leave the checkout as it was: a run that
// rewrites package-lock.json or a generated file that is tracked would make every clean
// clone dirty. `npm test` takes a snapshot of the tracked files that differ from HEAD when
// it starts (a developer's own edits) and compares it with the same snapshot at the end.
// Node builtins only.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const GIT_TIMEOUT_MS = 30_000;

function git(repoRoot, args) {
  return execFileSync('git', args, {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: GIT_TIMEOUT_MS,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

function contentHash(file) {
  return existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : 'deleted';
}

/**
 * Tracked files that differ from HEAD, each with a hash of its content now, or null when
 * the folder is not a git checkout (nothing to compare).
 */
export function trackedChanges(repoRoot) {
  let listing;
  try {
    listing = git(repoRoot, ['status', '--porcelain=v1', '-z', '--untracked-files=no']);
  } catch {
    return null;
  }
  const changes = new Map();
  const entries = listing.split('\0').filter(Boolean);
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index];
    const file = entry.slice(3);
    changes.set(file, contentHash(path.join(repoRoot, file)));
    // A rename is followed by its source path, itself changed.
    if (entry[0] === 'R' || entry[0] === 'C') {
      index += 1;
      changes.set(entries[index], contentHash(path.join(repoRoot, entries[index])));
    }
  }
  return changes;
}

/** The tracked files whose state differs between two snapshots of `trackedChanges`. */
export function changedBetween(before, after) {
  const files = new Set([...before.keys(), ...after.keys()]);
  return [...files].filter((file) => before.get(file) !== after.get(file)).sort();
}
