// Proves the sandbox pin's checks: bid > 0, ask >= bid, at most 4 decimals,
// bounded, every bad field named.
import { AppError } from '@platform/errors';
import { parseSandboxRatePin } from './sandbox-rate';

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';

function message(bid: string, ask: string): string {
  try {
    parseSandboxRatePin({ partnerId, bid, ask, halted: false });
  } catch (error) {
    return (error as AppError).partnerMessage;
  }
  return 'accepted';
}

describe('parseSandboxRatePin', () => {
  it('accepts up to 4 decimals and an ask equal to the bid', () => {
    const pin = parseSandboxRatePin({ partnerId, bid: '128.1234', ask: '128.1234', halted: true });
    expect([pin.bid.toString(), pin.ask.toString(), pin.halted]).toEqual(['128.1234', '128.1234', true]);
  });

  it.each([
    ['0', '1', 'bid'],
    ['0.0000', '1', 'bid'],
    ['128.12345', '130', 'bid'],
    ['-1', '130', 'bid'],
    ['128', '127.9999', 'ask'],
    ['128', '130.98765', 'ask'],
    ['1', '1000000.0001', 'ask'],
    ['x', '', 'bid, ask'],
  ])('refuses bid %s ask %s naming %s', (bid, ask, fields) => {
    expect(message(bid, ask)).toBe(`Validation failed on: ${fields}`);
  });
});
