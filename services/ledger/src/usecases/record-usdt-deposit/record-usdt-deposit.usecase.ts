import { randomUUID } from 'node:crypto';
import { validationFailed } from '@platform/errors';
import { Big, parsePositiveAmount } from '@platform/money';
import { DataSource, EntityManager, withTransaction } from '@platform/persistence';
import { DepositHoldLimits, DepositPlan, planDeposit } from '../../domain/deposit-plan';
import { isValidTronAddress } from '@platform/chain';
import type { AccountsRepository, PartnerAccountSet } from '../../persistence/accounts.repository';
import type { UsdtDepositRecord, UsdtDepositsRepository } from '../../persistence/usdt-deposits.repository';
import type { UsdtDepositExpectationsRepository } from '../../persistence/usdt-deposit-expectations.repository';
import { announceUsdtCredit, moveUsdt, partnerUsdtAccount } from './usdt-deposit-booking';

export interface RecordUsdtDepositCommand {
  txHash: string;
  toAddress: string;
  usdtAmount: string;
  receivedAt: string;
}

export const TX_HASH = /^[0-9a-f]{64}$/;

/**
 * Records a USDT deposit the chain reports, exactly once per transaction hash
 * (a second notification, also a concurrent one, returns the first record).
 * Under the hash's lock, the partner's registered expectations say where it
 * goes (domain/deposit-plan); the booking (chain clearing → partner balance or
 * suspense), the deposit row and, when the balance is credited,
 * `usdt_credit.received` commit together. No other service is asked.
 * A deposit to an address of no partner goes to suspense for operators.
 */
export class RecordUsdtDepositUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly deposits: UsdtDepositsRepository,
    private readonly expectations: UsdtDepositExpectationsRepository,
    private readonly limits: DepositHoldLimits,
    private readonly onCommitted: () => void,
  ) {}

  async execute(command: RecordUsdtDepositCommand): Promise<UsdtDepositRecord> {
    const amount = this.validate(command);
    const known = await withTransaction(this.dataSource, (manager) => this.deposits.find(manager, command.txHash));
    if (known) return known;
    const partner = await this.accounts.findByDepositAddress(command.toAddress);
    const record = await withTransaction(this.dataSource, async (manager) => {
      await this.deposits.lockTxHash(manager, command.txHash);
      const again = await this.deposits.find(manager, command.txHash);
      if (again) return again;
      const plan = partner
        ? planDeposit(
            await this.expectations.ofDeposit(manager, partner.partnerId, command.txHash),
            Date.now(),
            this.limits,
          )
        : null;
      return this.book(manager, command, amount, partner, plan);
    });
    this.onCommitted();
    return record;
  }

  private validate(command: RecordUsdtDepositCommand): Big {
    const bad: string[] = [];
    if (!TX_HASH.test(command.txHash)) bad.push('txHash');
    if (!isValidTronAddress(command.toAddress)) bad.push('toAddress');
    const amount = parsePositiveAmount(command.usdtAmount, 'USDT');
    if (!amount) bad.push('usdtAmount');
    if (Number.isNaN(Date.parse(command.receivedAt))) bad.push('receivedAt');
    if (bad.length > 0) throw validationFailed(bad);
    return amount!;
  }

  private async book(
    manager: EntityManager,
    command: RecordUsdtDepositCommand,
    amount: Big,
    partner: PartnerAccountSet | null,
    plan: DepositPlan | null,
  ): Promise<UsdtDepositRecord> {
    const toBalance = partner !== null && plan?.status === 'credited';
    const to = toBalance
      ? await partnerUsdtAccount(this.accounts, manager, partner.partnerId)
      : await this.accounts.serviceAccountId('suspense', 'USDT');
    const kind = toBalance ? 'usdt_deposit' : partner ? 'usdt_deposit_held' : 'usdt_deposit_unattributed';
    const bookingEntryId = await moveUsdt(manager, {
      from: await this.accounts.serviceAccountId('chain_clearing', 'USDT'),
      to,
      amount,
      kind,
      partnerId: partner?.partnerId ?? null,
      txHash: command.txHash,
    });
    const record = await this.deposits.insert(manager, {
      depositId: randomUUID(),
      txHash: command.txHash,
      toAddress: command.toAddress,
      partnerId: partner?.partnerId ?? null,
      amount,
      status: plan?.status ?? 'unattributed',
      holdUntil: plan?.status === 'held_for_attribution' ? plan.holdUntil : null,
      orderId: plan?.status === 'claimed' ? plan.orderId : null,
      receivedAt: new Date(command.receivedAt).toISOString(),
      bookingEntryId,
    });
    if (toBalance) await announceUsdtCredit(manager, record);
    return record;
  }
}
