/**
 * A USDT send request, validated: an active
 * wallet id, a positive USDT amount with at most 6 decimals, within the
 * service's minimum and per-send cap. The hash binds the idempotency key.
 */
import { sha256Hex } from '@platform/crypto';
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { Big, formatAmount, parsePositiveAmount } from '@platform/money';
import { IDEMPOTENCY_KEY_PATTERN, PARTNER_REFERENCE_LENGTH_MAX } from './transfer-request';

const PRINTABLE = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]+$/;

export interface UsdtSendRequest {
  destinationWalletId: string;
  usdtAmount: Big;
  idempotencyKey: string;
  partnerReference: string;
}

export function parseUsdtSendRequest(input: {
  destinationWalletId: string;
  usdtAmount: string;
  idempotencyKey: string;
  partnerReference?: string;
}): UsdtSendRequest {
  const bad: string[] = [];
  if (!isUuid(input.destinationWalletId)) bad.push('destinationWalletId');
  const usdtAmount = parsePositiveAmount(input.usdtAmount, 'USDT');
  if (!usdtAmount) bad.push('usdtAmount');
  if (!IDEMPOTENCY_KEY_PATTERN.test(input.idempotencyKey)) bad.push('idempotencyKey');
  const reference = input.partnerReference ?? input.idempotencyKey;
  if (reference.length === 0 || reference.length > PARTNER_REFERENCE_LENGTH_MAX || !PRINTABLE.test(reference))
    bad.push('partnerReference');
  if (bad.length > 0 || !usdtAmount) throw validationFailed(bad);
  return {
    destinationWalletId: input.destinationWalletId,
    usdtAmount,
    idempotencyKey: input.idempotencyKey,
    partnerReference: reference,
  };
}

/** The service's bounds on one send (configuration; documented in docs/api-behaviour.md). */
export function assertWithinSendBounds(usdtAmount: Big, bounds: { minimumUsdt: Big; capUsdt: Big }): void {
  if (usdtAmount.lt(bounds.minimumUsdt)) throw new AppError('USDT_SEND_BELOW_MINIMUM');
  if (usdtAmount.gt(bounds.capUsdt)) throw new AppError('USDT_SEND_EXCEEDS_PER_SEND_CAP');
}

export function usdtSendRequestHash(request: UsdtSendRequest): string {
  return sha256Hex(
    JSON.stringify([
      'usdt_send',
      request.destinationWalletId,
      formatAmount(request.usdtAmount, 'USDT'),
      request.partnerReference,
    ]),
  );
}
