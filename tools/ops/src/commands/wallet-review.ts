/**
 * `wallet approve` / `wallet reject`: the service's review of a withdrawal
 * address its administrator confirmed. Approve makes it
 * active (screening cleared); reject makes it rejected (screening rejected).
 * Repeating the decision already taken is harmless.
 */
import { FlagReader, FlagValues } from '../flags';
import { defineCommand, PARTNER_FLAG, valueFlag } from './command';

export interface WalletReviewInput {
  partnerId: string;
  walletId: string;
}

export interface WalletReviewResult {
  walletId: string;
  status: string;
}

export function parseWalletReview(values: FlagValues): WalletReviewInput {
  const flags = new FlagReader(values);
  const input = { partnerId: flags.uuid('partner', true), walletId: flags.uuid('wallet', true) };
  flags.done();
  return input;
}

function reviewCommand(decision: 'approve' | 'reject', summary: string) {
  return defineCommand<WalletReviewInput, WalletReviewResult>({
    name: `wallet ${decision}`,
    summary,
    synopsis: '--partner ID --wallet ID',
    flags: { partner: PARTNER_FLAG, wallet: valueFlag("ID: the wallet's id, a UUID (required)") },
    parse: parseWalletReview,
    async run(input, clients) {
      const wallet = await clients.walletRegistryAdmin().reviewWallet({ ...input, decision });
      return { walletId: wallet.walletId, status: wallet.status };
    },
    describe: (result) => `Wallet ${result.walletId} is ${result.status}.`,
  });
}

export const walletApprove = reviewCommand(
  'approve',
  "Approve a wallet awaiting the service's review: it becomes active.",
);
export const walletReject = reviewCommand(
  'reject',
  "Reject a wallet awaiting the service's review: it can never receive value.",
);
