// Proves which partner-supplied request ids are kept and that every other
// value is replaced by a fresh UUID.
import { UUID_PATTERN } from '@platform/ids';
import { resolveRequestId } from './request-id';

describe('resolveRequestId', () => {
  it.each(['abc', 'req-1.2:3_4', 'A'.repeat(64), '0'])('keeps %p', (id) => {
    expect(resolveRequestId(id)).toBe(id);
  });

  it.each([undefined, '', 'A'.repeat(65), 'has space', 'semi;colon', 'new\nline', 'ünïcode', 'a, b', ['one', 'two']])(
    'replaces %p with a UUID',
    (id) => {
      expect(resolveRequestId(id as string | string[] | undefined)).toMatch(UUID_PATTERN);
    },
  );

  it('makes a new id each time', () => {
    expect(resolveRequestId(undefined)).not.toBe(resolveRequestId(undefined));
  });
});
