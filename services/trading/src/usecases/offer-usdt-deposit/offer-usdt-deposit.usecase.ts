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

/** Where sell orders decide what a deposit is for (usecases/sell-orders). */
export interface DepositMatcher {
  matchDeposit(command: OfferUsdtDepositCommand): Promise<DepositDecision>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TX_HASH = /^[0-9a-f]{64}$/;

/**
 * The ledger offers each inbound USDT deposit before crediting a balance: a
 * sell order awaiting USDT whose attached hash is this one takes it
 * ("matched"); open sell orders still awaiting a hash ask the ledger to hold
 * it until the latest of their send-before times ("hold"); otherwise it tops
 * up the balance ("none"). The shape is checked here; the decision is the
 * matcher's.
 */
export class OfferUsdtDepositUseCase {
  constructor(private readonly matcher: DepositMatcher) {}

  async execute(command: OfferUsdtDepositCommand): Promise<DepositDecision> {
    const bad: string[] = [];
    if (!UUID.test(command.partnerId)) bad.push('partnerId');
    if (!TX_HASH.test(command.txHash)) bad.push('txHash');
    if (!parsePositiveAmount(command.usdtAmount, 'USDT')) bad.push('usdtAmount');
    if (bad.length > 0) throw validationFailed(bad);
    return this.matcher.matchDeposit(command);
  }
}
