/**
 * Proves the webhook verifier: a delivery signed as webhook-delivery signs it
 * (@platform/crypto) verifies with Node-style and fetch-style headers, with
 * either secret of a rotation; a wrong secret, a tampered body, a stale or
 * future timestamp and missing headers are refused; the dedupe hook marks a
 * repeated delivery id as a duplicate.
 */
import { webhookSignatureHeader } from '@platform/crypto';
import { WebhookVerificationError } from './errors';
import { createWebhookVerifier, inMemoryDeliveryDedupe } from './webhooks';

const NOW_MS = 1_700_000_000_000;
const body = JSON.stringify({
  id: 'evt-1',
  type: 'credit.received',
  createdAt: '2026-01-01T00:00:00.000Z',
  data: { transactionId: 't-1' },
});

function delivery(secrets: string[], timestampMs = NOW_MS, deliveryId = 'dlv-1') {
  return {
    'x-service-signature': webhookSignatureHeader(secrets, String(timestampMs), deliveryId, body),
    'x-service-timestamp': String(timestampMs),
    'x-service-delivery': deliveryId,
    'x-service-event': 'credit.received',
  };
}

const verifier = (options: Partial<Parameters<typeof createWebhookVerifier>[0]> = {}) =>
  createWebhookVerifier({ secrets: 'whsec_current', nowMs: () => NOW_MS, ...options });

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.catch((caught: unknown) => caught);
  if (!(error instanceof WebhookVerificationError)) throw new Error('expected a WebhookVerificationError');
  return error.reason;
}

describe('webhook verifier', () => {
  it('verifies a signed delivery from Node headers and from fetch Headers', async () => {
    const verified = await verifier().verify(Buffer.from(body), delivery(['whsec_current']));
    expect(verified).toMatchObject({
      deliveryId: 'dlv-1',
      eventHint: 'credit.received',
      duplicate: false,
      event: { type: 'credit.received' },
    });
    const fromFetch = await verifier().verify(body, new Headers(delivery(['whsec_current'])));
    expect(fromFetch.event.id).toBe('evt-1');
  });

  it('accepts either secret during a rotation, on either side', async () => {
    const rotated = delivery(['whsec_new', 'whsec_current']);
    await expect(verifier().verify(body, rotated)).resolves.toBeDefined();
    await expect(verifier({ secrets: ['whsec_new', 'whsec_older'] }).verify(body, rotated)).resolves.toBeDefined();
  });

  it('refuses a wrong secret, a tampered body and a replayed signature on another delivery id', async () => {
    expect(await refusal(verifier({ secrets: 'whsec_other' }).verify(body, delivery(['whsec_current'])))).toBe(
      'bad_signature',
    );
    expect(await refusal(verifier().verify(body.replace('t-1', 't-2'), delivery(['whsec_current'])))).toBe(
      'bad_signature',
    );
    const moved = { ...delivery(['whsec_current']), 'x-service-delivery': 'dlv-2' };
    expect(await refusal(verifier().verify(body, moved))).toBe('bad_signature');
  });

  it('refuses timestamps outside the tolerance and missing headers', async () => {
    expect(await refusal(verifier().verify(body, delivery(['whsec_current'], NOW_MS - 300_001)))).toBe(
      'stale_timestamp',
    );
    expect(await refusal(verifier().verify(body, delivery(['whsec_current'], NOW_MS + 300_001)))).toBe(
      'stale_timestamp',
    );
    await expect(verifier().verify(body, delivery(['whsec_current'], NOW_MS - 299_000))).resolves.toBeDefined();
    const { 'x-service-delivery': _omitted, ...missing } = delivery(['whsec_current']);
    expect(await refusal(verifier().verify(body, missing))).toBe('missing_header');
  });

  it('marks a repeated delivery id as a duplicate through the dedupe hook', async () => {
    const dedupe = verifier({ seenBefore: inMemoryDeliveryDedupe(10) });
    expect((await dedupe.verify(body, delivery(['whsec_current']))).duplicate).toBe(false);
    expect((await dedupe.verify(body, delivery(['whsec_current'], NOW_MS + 30_000))).duplicate).toBe(true);
  });
});
