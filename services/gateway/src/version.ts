import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The gateway's version from its package.json (one level above both src/ and dist/). */
export function readServiceVersion(): string {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new Error('package.json has no version');
  return manifest.version;
}
