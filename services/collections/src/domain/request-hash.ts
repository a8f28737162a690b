import { createHash } from 'node:crypto';

/**
 * The hash of what a create asked for, to tell a true repeat of a
 * partnerReference (same body: the original answer) from a reuse with another
 * body (IDEMPOTENCY_KEY_REUSED). Fields in a fixed order; absent is null.
 */
export function createRequestHash(request: {
  currency: string;
  partnerReference: string;
  payerLabel: string;
  expectedAmount: string | null;
}): string {
  const canonical = JSON.stringify([
    request.currency,
    request.partnerReference,
    request.payerLabel,
    request.expectedAmount,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
