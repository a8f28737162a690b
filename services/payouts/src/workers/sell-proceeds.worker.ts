/**
 * The `sell_proceeds` worker: pays sell orders' KES proceeds by pulling them
 * from trading (PaySellProceedsUseCase), on the shared BatchSweeper of
 * @platform/persistence, in every replica. The rows are trading's (each claim
 * leases its orders to the claiming replica), so nothing here is measured as
 * due rows. It sweeps only while trading looks reachable (its channel and
 * breaker, no round trip); the instructions it makes are driven to the bank by
 * the payout worker, so a sweep needs nothing else. A sweep that meets trading
 * unavailable backs off; the orders it had claimed wait for their lease.
 */
import type { Logger } from '@platform/logger';
import { BatchSweeper, ReadinessGate } from '@platform/persistence';
import type { PaySellProceedsUseCase } from '../usecases/pay-sell-proceeds/pay-sell-proceeds.usecase';

export function sellProceedsWorker(context: {
  pay: Pick<PaySellProceedsUseCase, 'execute'>;
  logger: Logger;
  intervalMs: number;
  batchSize: number;
  ready: ReadinessGate;
}): BatchSweeper {
  return new BatchSweeper(
    'sell proceeds',
    (size) => context.pay.execute(size),
    context.logger.child({ context: 'SellProceeds' }),
    { intervalMs: context.intervalMs, batchSize: context.batchSize, ready: context.ready },
    { worker: 'sell_proceeds' },
  );
}
