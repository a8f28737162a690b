// Proves that equal requests hash equally whatever their key order, and that any changed value changes the hash.
import { canonicalJson, requestHash } from './request-hash';

describe('request hash', () => {
  it('ignores key order at every depth and undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null }, u: undefined })).toBe(
      '{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}',
    );
    expect(requestHash({ a: '1', b: '2' })).toBe(requestHash({ b: '2', a: '1' }));
  });

  it('differs when any value differs', () => {
    expect(requestHash({ amount: '10.00' })).not.toBe(requestHash({ amount: '10.01' }));
    expect(requestHash({ postings: [1, 2] })).not.toBe(requestHash({ postings: [2, 1] }));
  });
});
