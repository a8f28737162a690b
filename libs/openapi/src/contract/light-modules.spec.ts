/**
 * Proves the contract's light modules load nothing: a service other than the
 * gateway, and the ops tool, import their lists by path
 * (`@platform/openapi/dist/contract/statuses`, `/scopes`) so that neither zod
 * nor the OpenAPI document is loaded into them. Jest's registry is not Node's,
 * so a plain Node process requires each built module (as those services do)
 * and reports every file in its require.cache.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const DIST = path.join(__dirname, '..', '..', 'dist', 'contract');

function filesLoadedBy(file: string): string[] {
  const script = `require(${JSON.stringify(file)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 }));
}

describe.each(['statuses', 'scopes'])('contract/%s', (name) => {
  const file = path.join(DIST, `${name}.js`);

  it('loads no other file (no zod, no schema, no document)', () => {
    if (!existsSync(file)) throw new Error(`${file} is missing: build @platform/openapi first (npm test does)`);
    expect(filesLoadedBy(file)).toEqual([file]);
  });
});
