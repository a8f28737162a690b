// Proves `wallet approve|reject` validate both ids and send the decision their
// name says, printing `{walletId, status}`.
import { CliError } from '../cli-error';
import type { OpsClients } from '../clients';
import { parseWalletReview, walletApprove, walletReject } from './wallet-review';

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';
const walletId = '7f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';

function clientsRecording(calls: unknown[]): OpsClients {
  const reviewWallet = async (request: { walletId: string; decision: string }) => {
    calls.push(request);
    return { walletId: request.walletId, status: request.decision === 'approve' ? 'active' : 'rejected' };
  };
  return { walletRegistryAdmin: () => ({ reviewWallet }) } as unknown as OpsClients;
}

describe('wallet approve / reject', () => {
  it('refuses missing or malformed ids, naming each flag', () => {
    expect(() => parseWalletReview({ partner: 'x' })).toThrow(CliError);
    try {
      parseWalletReview({ partner: 'x' });
    } catch (error) {
      expect((error as Error).message).toContain('partner');
      expect((error as Error).message).toContain('wallet');
    }
  });

  it('sends the decision of the command', async () => {
    const calls: unknown[] = [];
    const input = parseWalletReview({ partner: partnerId, wallet: walletId });
    expect(await walletApprove.run(input, clientsRecording(calls))).toEqual({ walletId, status: 'active' });
    expect(await walletReject.run(input, clientsRecording(calls))).toEqual({ walletId, status: 'rejected' });
    expect(calls).toEqual([
      { partnerId, walletId, decision: 'approve' },
      { partnerId, walletId, decision: 'reject' },
    ]);
    expect(walletApprove.describe({ walletId, status: 'active' })).toBe(`Wallet ${walletId} is active.`);
  });
});
