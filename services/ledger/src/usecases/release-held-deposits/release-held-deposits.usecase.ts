import { DataSource, withTransaction } from '@platform/persistence';
import { Big } from '@platform/money';
import type { AccountsRepository } from '../../persistence/accounts.repository';
import type { UsdtDepositsRepository } from '../../persistence/usdt-deposits.repository';
import { announceUsdtCredit, moveUsdt, partnerUsdtAccount } from '../record-usdt-deposit/usdt-deposit-booking';

/**
 * Credits held deposits whose window passed and no order claimed: USDT
 * suspense → the partner's balance, with `usdt_credit.received`, one bounded
 * batch per call. Rows are claimed FOR UPDATE SKIP LOCKED, so every replica
 * may sweep and none credits a deposit twice; a concurrent claim either wins
 * the row lock first (the deposit is no longer held) or waits and finds it credited.
 */
export class ReleaseHeldDepositsUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly deposits: UsdtDepositsRepository,
    private readonly onCommitted: () => void,
  ) {}

  async execute(batchSize: number): Promise<number> {
    const released = await withTransaction(this.dataSource, async (manager) => {
      const due = await this.deposits.claimDue(manager, batchSize);
      const suspense = await this.accounts.serviceAccountId('suspense', 'USDT');
      for (const deposit of due) {
        const entryId = await moveUsdt(manager, {
          from: suspense,
          to: await partnerUsdtAccount(this.accounts, manager, deposit.partnerId!),
          amount: new Big(deposit.usdtAmount),
          kind: 'usdt_deposit_released',
          partnerId: deposit.partnerId,
          txHash: deposit.txHash,
        });
        await announceUsdtCredit(manager, await this.deposits.markCredited(manager, deposit.depositId, entryId));
      }
      return due.length;
    });
    if (released > 0) this.onCommitted();
    return released;
  }
}
