// Proves the USDT send request rules: a wallet UUID, a positive amount with at
// most 6 decimals, the idempotency key and reference (defaulting to the key),
// every offending field named at once, the service's minimum and per-send cap
// (both inclusive), and a hash that ignores spelling but not content.
import { AppError } from '@platform/errors';
import { Big } from '@platform/money';
import { assertWithinSendBounds, parseUsdtSendRequest, usdtSendRequestHash } from './usdt-send-request';

const valid = {
  destinationWalletId: '11111111-1111-4111-8111-111111111111',
  usdtAmount: '10.5',
  idempotencyKey: 'send-1',
};
const bounds = { minimumUsdt: new Big('1.000000'), capUsdt: new Big('100.000000') };

function codeOf(run: () => unknown): string | null {
  try {
    run();
  } catch (error) {
    const appError = error as AppError;
    return appError.fields ? appError.fields.join(',') : appError.code;
  }
  return null;
}

describe('USDT send request', () => {
  it('accepts a valid request, defaulting partnerReference to the key', () => {
    expect(parseUsdtSendRequest(valid)).toMatchObject({
      partnerReference: 'send-1',
      destinationWalletId: valid.destinationWalletId,
    });
  });

  it('names every offending field', () => {
    expect(
      codeOf(() =>
        parseUsdtSendRequest({
          destinationWalletId: 'x',
          usdtAmount: '1.0000001',
          idempotencyKey: 'a b',
          partnerReference: '',
        }),
      ),
    ).toBe('destinationWalletId,usdtAmount,idempotencyKey,partnerReference');
    expect(codeOf(() => parseUsdtSendRequest({ ...valid, usdtAmount: '0' }))).toBe('usdtAmount');
  });

  it('applies the minimum and the per-send cap, both inclusive', () => {
    expect(codeOf(() => assertWithinSendBounds(new Big('0.999999'), bounds))).toBe('USDT_SEND_BELOW_MINIMUM');
    expect(codeOf(() => assertWithinSendBounds(new Big('1'), bounds))).toBeNull();
    expect(codeOf(() => assertWithinSendBounds(new Big('100'), bounds))).toBeNull();
    expect(codeOf(() => assertWithinSendBounds(new Big('100.000001'), bounds))).toBe('USDT_SEND_EXCEEDS_PER_SEND_CAP');
  });

  it('hashes the content, not its spelling', () => {
    const hash = usdtSendRequestHash(parseUsdtSendRequest(valid));
    expect(usdtSendRequestHash(parseUsdtSendRequest({ ...valid, usdtAmount: '10.500000' }))).toBe(hash);
    expect(usdtSendRequestHash(parseUsdtSendRequest({ ...valid, usdtAmount: '10.500001' }))).not.toBe(hash);
  });
});
