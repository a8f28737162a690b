// Proves the error envelope ({statusCode, message, error, requestId}) on every kind of failure against
// the test stack: unknown routes (inside and outside /v1, and a wrong method),
// malformed JSON, a wrong content type, a body over 64 KiB (413), validation
// naming every offending field; and the X-Request-Id rules: kept when valid,
// replaced when not, always equal to the body's requestId.
import { UUID_PATTERN } from '@platform/ids';
import { createTestPartner, loadTestStack, PartnerHttpClient } from '@platform/testing';
import { envelope, requestIdOf } from './helpers';

let client: PartnerHttpClient;

beforeAll(async () => {
  client = new PartnerHttpClient(await createTestPartner());
});

describe('error envelope', () => {
  it('answers 404 NOT_FOUND for an unknown /v1 route, after authentication', async () => {
    const result = await client.get('/v1/does-not-exist');
    expect(result.status).toBe(404);
    expect(result.body).toEqual(envelope(result, 404, 'NOT_FOUND', 'Not Found'));
    expect((await client.get('/v1/does-not-exist', { unsigned: true })).status).toBe(401);
  });

  it('answers 404 NOT_FOUND for a known path with another method', async () => {
    const result = await client.request('DELETE', '/v1/health');
    expect(result.body).toEqual(envelope(result, 404, 'NOT_FOUND', 'Not Found'));
  });

  it('answers 404 NOT_FOUND outside /v1 without authentication', async () => {
    const response = await fetch(`${loadTestStack().gatewayUrl}/nowhere`);
    const body = await response.json();
    expect(response.status).toBe(404);
    expect(body).toEqual({
      statusCode: 404,
      message: 'NOT_FOUND',
      error: 'Not Found',
      requestId: response.headers.get('x-request-id'),
    });
  });

  it('answers 400 "Validation failed on: body" for malformed JSON', async () => {
    const result = await client.post('/v1/quotes', undefined, { rawBody: '{"side":"buy",' });
    expect(result.status).toBe(400);
    expect(result.body).toEqual(envelope(result, 400, 'Validation failed on: body', 'Bad Request'));
  });

  it('answers 400 "Validation failed on: body" for a wrong content type', async () => {
    const result = await client.post('/v1/quotes', undefined, {
      rawBody: '{"side":"buy","kesAmount":"1000.00"}',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(result.status).toBe(400);
    expect(result.body).toEqual(envelope(result, 400, 'Validation failed on: body', 'Bad Request'));
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a 65 KiB body', async () => {
    const result = await client.post('/v1/quotes', undefined, {
      rawBody: JSON.stringify({ side: 'buy', pad: 'x'.repeat(65 * 1024) }),
    });
    expect(result.status).toBe(413);
    expect(result.body).toEqual(envelope(result, 413, 'PAYLOAD_TOO_LARGE', 'Payload Too Large'));
  });

  it('names every offending field, in request order', async () => {
    const wrong = await client.post('/v1/quotes', { side: 'hold', kesAmount: 1000 });
    expect(wrong.body).toEqual(envelope(wrong, 400, 'Validation failed on: side, kesAmount', 'Bad Request'));
    const both = await client.post('/v1/quotes', { side: 'buy', kesAmount: '1000.00', usdtAmount: '10.000000' });
    expect(both.body.message).toBe('Validation failed on: kesAmount, usdtAmount');
    const neither = await client.post('/v1/quotes', { side: 'sell' });
    expect(neither.body.message).toBe('Validation failed on: kesAmount, usdtAmount');
    const scale = await client.post('/v1/quotes', { side: 'buy', kesAmount: '1000.001' });
    expect(scale.body.message).toBe('Validation failed on: kesAmount');
  });
});

describe('X-Request-Id', () => {
  it('keeps a valid partner request id, on success and on error', async () => {
    const ok = await client.get('/v1/health', { headers: { 'X-Request-Id': 'partner-req:42.a_b' } });
    expect(requestIdOf(ok)).toBe('partner-req:42.a_b');
    const notFound = await client.get('/v1/nope', { headers: { 'X-Request-Id': 'partner-req:43' } });
    expect(requestIdOf(notFound)).toBe('partner-req:43');
    expect(notFound.body.requestId).toBe('partner-req:43');
  });

  it.each(['has spaces', 'x'.repeat(65), 'semi;colon'])('replaces %p with a UUID', async (requestId) => {
    const result = await client.get('/v1/nope', { headers: { 'X-Request-Id': requestId } });
    expect(requestIdOf(result)).toMatch(UUID_PATTERN);
    expect(result.body.requestId).toBe(requestIdOf(result));
  });
});
