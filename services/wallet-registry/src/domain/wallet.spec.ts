// Proves wallet registrations are checked field by field (chain, asset, TRON
// address with checksum, label) and that review decisions move screening too.
import { AppError } from '@platform/errors';
import { nextStepFor, parseWalletInput, reviewOutcome, WALLET_STATUSES } from './wallet';

const VALID = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

describe('parseWalletInput', () => {
  it('accepts tron USDT with a valid address', () => {
    expect(parseWalletInput({ chain: 'tron', asset: 'USDT', address: VALID, label: 'Treasury' }).address).toBe(VALID);
  });

  it.each([
    [{ chain: 'TRON', asset: 'USDT', address: VALID, label: '' }, 'Validation failed on: chain'],
    [{ chain: 'tron', asset: 'usdt', address: VALID, label: '' }, 'Validation failed on: asset'],
    [{ chain: 'tron', asset: 'USDT', address: `${VALID.slice(0, 33)}u`, label: '' }, 'Validation failed on: address'],
    [
      { chain: 'eth', asset: 'ETH', address: '0xabc', label: 'x\u0000' },
      'Validation failed on: chain, asset, address, label',
    ],
  ])('refuses %p', (input, message) => {
    try {
      parseWalletInput(input);
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).partnerMessage).toBe(message);
    }
  });
});

describe('wallet states', () => {
  it('has a next step for every status and review outcomes that move screening', () => {
    for (const status of WALLET_STATUSES) expect(nextStepFor(status).length).toBeGreaterThan(10);
    expect(reviewOutcome('approve')).toEqual({ status: 'active', screeningStatus: 'cleared' });
    expect(reviewOutcome('reject')).toEqual({ status: 'rejected', screeningStatus: 'rejected' });
  });
});
