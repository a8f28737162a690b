// Proves the push amount limits and that only a pending, unexpired push takes an answer (the first answer stands).
import { applyAnswer, parsePushAmountKes, PushStatus } from './mobile-money-push';

describe('parsePushAmountKes', () => {
  it.each(['1.00', '1', '100.50', '250000.00'])('accepts %s', (value) => {
    expect(parsePushAmountKes(value)).not.toBeNull();
  });

  it.each(['0.99', '0', '-5.00', '250000.01', '1.001', 'abc', '1e3', ''])('refuses %j', (value) => {
    expect(parsePushAmountKes(value)).toBeNull();
  });
});

describe('applyAnswer', () => {
  const expiresAt = new Date('2026-01-01T00:01:00.000Z');
  const before = new Date('2026-01-01T00:00:59.999Z');

  it('approves or declines a pending push inside its lifetime', () => {
    expect(applyAnswer('pending', expiresAt, before, 'approve')).toBe('approved');
    expect(applyAnswer('pending', expiresAt, before, 'decline')).toBe('declined');
  });

  it('expires a pending push answered at or after its expiry', () => {
    expect(applyAnswer('pending', expiresAt, expiresAt, 'approve')).toBe('expired');
  });

  it.each<PushStatus>(['approved', 'credited', 'declined', 'expired', 'rejected', 'unavailable'])(
    'leaves %s unchanged',
    (status) => {
      expect(applyAnswer(status, expiresAt, before, 'approve')).toBe(status);
      expect(applyAnswer(status, expiresAt, before, 'decline')).toBe(status);
    },
  );
});
