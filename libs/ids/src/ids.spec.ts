/**
 * Proves the one id format: what the platform mints (node's randomUUID, PostgreSQL's
 * canonical output, any version) passes, and every other spelling of an id, the ones
 * a partner could send, is refused: uppercase, braces, missing or moved hyphens,
 * surrounding space or a line break, a prefix or suffix, and values that are not strings.
 * Last, that the built module loads no other file, so every service and tool may import it.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isUuid, UUID_LENGTH, UUID_PATTERN } from './index';

const V4 = '6f1c2d3e-4a5b-4c6d-8e7f-901234567890';

describe('isUuid', () => {
  it.each([
    ['a random v4', V4],
    ['a v1 (time-based)', 'c232ab00-9414-11ec-b3c8-9f6bdeced846'],
    ['a v7 (time-ordered)', '01936f3a-1c2b-7d4e-8f60-123456789abc'],
    ['the nil UUID', '00000000-0000-0000-0000-000000000000'],
    ['the max UUID', 'ffffffff-ffff-ffff-ffff-ffffffffffff'],
  ])('accepts %s', (_name, id) => {
    expect(isUuid(id)).toBe(true);
    expect(id).toHaveLength(UUID_LENGTH);
  });

  it("accepts every id node's randomUUID mints", () => {
    for (let index = 0; index < 1000; index += 1) expect(isUuid(randomUUID())).toBe(true);
  });

  it.each([
    ['uppercase', V4.toUpperCase()],
    ['one uppercase digit', '6F1c2d3e-4a5b-4c6d-8e7f-901234567890'],
    ['braces', `{${V4}}`],
    ['no hyphens', V4.replace(/-/g, '')],
    ['a hyphen moved', '6f1c2d3e4-a5b-4c6d-8e7f-901234567890'],
    ['a digit short', V4.slice(1)],
    ['a digit over', `${V4}0`],
    ['a non-hex letter', '6f1c2d3e-4a5b-4c6d-8e7f-90123456789g'],
    ['a leading space', ` ${V4}`],
    ['a trailing line break', `${V4}\n`],
    ['a urn prefix', `urn:uuid:${V4}`],
    ['two ids', `${V4}${V4}`],
    ['the empty string', ''],
  ])('refuses %s', (_name, id) => {
    expect(isUuid(id)).toBe(false);
  });

  it.each([[undefined], [null], [42], [{ id: V4 }], [[V4]]])('refuses the non-string %p', (value) => {
    expect(isUuid(value)).toBe(false);
  });
});

describe('UUID_PATTERN', () => {
  it('keeps no state between tests (no g or y flag), so one shared instance answers the same twice', () => {
    expect(UUID_PATTERN.flags).toBe('');
    expect(UUID_PATTERN.test(V4)).toBe(true);
    expect(UUID_PATTERN.test(V4)).toBe(true);
  });

  it('is anchored at both ends, as an OpenAPI pattern taken from its source must be', () => {
    expect(UUID_PATTERN.source.startsWith('^')).toBe(true);
    expect(UUID_PATTERN.source.endsWith('$')).toBe(true);
  });
});

describe('the built module', () => {
  it('loads no other file (no zod, no contract), so any service or tool may import it', () => {
    const file = path.join(__dirname, '..', 'dist', 'index.js');
    if (!existsSync(file)) throw new Error(`${file} is missing: build @platform/ids first (npm test does)`);
    // Jest's module registry is not Node's: a plain Node process requires the file and reports its require.cache.
    const script = `require(${JSON.stringify(file)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
    const loaded = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 }));
    expect(loaded).toEqual([file]);
  });
});
