import { validationFailed } from '@platform/errors';
import { parsePositiveAmount } from '@platform/money';

export interface OfferUsdtDepositCommand {
  partnerId: string;
  txHash: string;
  usdtAmount: string;
}

export type DepositDecision =
  | { decision: 'matched'; orderId: string }
  | { decision: 'hold'; holdUntil: string }
  | { decision: 'none' };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TX_HASH = /^[0-9a-f]{64}$/;

/**
 * The ledger offers each inbound USDT deposit before crediting a balance: a
 * sell order whose attached hash is this one takes it ("matched"); open sell
 * orders still awaiting a hash ask the ledger to hold it until the latest of
 * their send-before times ("hold"); otherwise it tops up the balance ("none").
 *
 * Trading has no sell orders yet (issue 5 adds them and extends this use case
 * with the two lookups), so today's true answer for every deposit is "none".
 */
export class OfferUsdtDepositUseCase {
  async execute(command: OfferUsdtDepositCommand): Promise<DepositDecision> {
    const bad: string[] = [];
    if (!UUID.test(command.partnerId)) bad.push('partnerId');
    if (!TX_HASH.test(command.txHash)) bad.push('txHash');
    if (!parsePositiveAmount(command.usdtAmount, 'USDT')) bad.push('usdtAmount');
    if (bad.length > 0) throw validationFailed(bad);
    return { decision: 'none' };
  }
}
