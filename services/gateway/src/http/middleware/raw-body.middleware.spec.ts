// Proves how the raw body is read: a request framed without a body (no
// Content-Length or Transfer-Encoding, or Content-Length 0) is an empty body at
// once; anything framed with a body is read to its end, byte for byte, and a
// body over the limit is too_large whatever its framing claimed.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { hasNoBody, readBody } from './raw-body.middleware';

function request(headers: Record<string, string>, chunks: string[] = []): IncomingMessage {
  return Object.assign(Readable.from(chunks.map((chunk) => Buffer.from(chunk))), {
    headers,
  }) as unknown as IncomingMessage;
}

describe('readBody', () => {
  it('answers an empty body at once for a request framed without one', async () => {
    for (const headers of [{}, { 'content-length': '0' }]) {
      expect(hasNoBody(request(headers))).toBe(true);
      expect(await readBody(request(headers), 16)).toEqual({ kind: 'body', body: Buffer.alloc(0) });
    }
  });

  it('reads a framed body to its end, chunked or with a length', async () => {
    expect(hasNoBody(request({ 'transfer-encoding': 'chunked' }))).toBe(false);
    expect(await readBody(request({ 'transfer-encoding': 'chunked' }, ['{"a":', '1}']), 64)).toEqual({
      kind: 'body',
      body: Buffer.from('{"a":1}'),
    });
    expect(await readBody(request({ 'content-length': '7' }, ['{"a":1}']), 64)).toEqual({
      kind: 'body',
      body: Buffer.from('{"a":1}'),
    });
  });

  it('counts what arrives, not what the framing claims', async () => {
    expect(await readBody(request({ 'transfer-encoding': 'chunked' }, ['x'.repeat(10), 'y'.repeat(10)]), 16)).toEqual({
      kind: 'too_large',
      drained: true,
    });
  });
});
