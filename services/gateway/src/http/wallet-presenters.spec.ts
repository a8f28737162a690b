// Proves the wallet and outbox presenters give exactly the spec's shapes and
// stop a response (WireFormatError) rather than pass on a malformed value, an
// unmasked e-mail above all.
import { WireFormatError } from '../domain/wire-format';
import { presentAdmin, presentOutboxEntry, presentRegisteredWallet, presentWallet } from './wallet-presenters';

const wallet = {
  walletId: '7f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
  chain: 'tron',
  asset: 'USDT',
  address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  label: '',
  status: 'pending_partner_approval',
  screeningStatus: 'pending',
  createdAt: '2026-11-21T09:00:00.000Z',
  nextStep: 'Confirm the code.',
};

describe('wallet presenters', () => {
  it('adds approvalSentTo only while a code is outstanding', () => {
    expect(
      presentRegisteredWallet({ wallet, created: true, approvalSentTo: 'j***@example.com', codeIssued: true }),
    ).toEqual({ ...wallet, approvalSentTo: 'j***@example.com' });
    expect(presentRegisteredWallet({ wallet, created: false, codeIssued: false })).toEqual(wallet);
  });

  it('refuses an unmasked e-mail, an internal status or a bad timestamp', () => {
    expect(() =>
      presentRegisteredWallet({ wallet, created: true, approvalSentTo: 'jane@example.com', codeIssued: true }),
    ).toThrow(WireFormatError);
    expect(() => presentWallet({ ...wallet, status: 'revoked' })).toThrow(WireFormatError);
    expect(() => presentWallet({ ...wallet, createdAt: '2026-11-21T09:00:00Z' })).toThrow(WireFormatError);
  });

  it('shows an administrator with the four spec fields', () => {
    expect(
      presentAdmin({
        adminId: wallet.walletId,
        email: 'jane@example.com',
        name: 'Jane',
        status: 'active',
        createdAt: wallet.createdAt,
      }),
    ).toEqual({ adminId: wallet.walletId, email: 'jane@example.com', name: 'Jane', status: 'active' });
  });

  it('shows an outbox entry masked, with its code or null', () => {
    const entry = {
      id: wallet.walletId,
      kind: 'wallet_approval',
      to: 'j***@example.com',
      subject: 'Approve',
      subjectType: 'wallet',
      subjectId: wallet.walletId,
      createdAt: wallet.createdAt,
    };
    expect(presentOutboxEntry({ ...entry, code: '012345' }, 0)).toEqual({ ...entry, code: '012345' });
    expect(presentOutboxEntry(entry, 0).code).toBeNull();
    expect(() => presentOutboxEntry({ ...entry, to: 'jane@example.com' }, 0)).toThrow(WireFormatError);
  });
});
