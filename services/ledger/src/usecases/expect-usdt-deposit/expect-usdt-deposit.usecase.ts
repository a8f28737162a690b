/**
 * Trading registers what a deposit-mode sell order expects: the order (before
 * the partner learns of it), then its deposit's hash once attached. The ledger
 * then attributes deposits itself (record-usdt-deposit) and trading learns of
 * the one claimed for its order by repeating this call. Idempotent on the
 * order: the same registration answers the current state; partner and
 * send-before are fixed by the first, a hash once named is never changed.
 * Naming the hash of a deposit already held for attribution claims it here, in
 * the same transaction, for an open expectation of the same partner only.
 */
import { AppError, validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { DataSource, EntityManager, withTransaction } from '@platform/persistence';
import type {
  UsdtDepositExpectationRecord,
  UsdtDepositExpectationsRepository,
} from '../../persistence/usdt-deposit-expectations.repository';
import type { UsdtDepositRecord, UsdtDepositsRepository } from '../../persistence/usdt-deposits.repository';
import { TX_HASH } from '../record-usdt-deposit/record-usdt-deposit.usecase';

export interface ExpectUsdtDepositCommand {
  partnerId: string;
  orderId: string;
  sendBefore: string;
  txHash?: string;
}

export interface UsdtDepositExpectation extends UsdtDepositExpectationRecord {
  /** The deposit claimed for this order, once there is one. */
  deposit: UsdtDepositRecord | null;
}

export class ExpectUsdtDepositUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly expectations: UsdtDepositExpectationsRepository,
    private readonly deposits: UsdtDepositsRepository,
  ) {}

  async execute(command: ExpectUsdtDepositCommand): Promise<UsdtDepositExpectation> {
    const sendBeforeMs = validate(command);
    return withTransaction(this.dataSource, async (manager) => {
      // The hash first: a deposit of that hash being recorded either committed already or waits for this.
      if (command.txHash !== undefined) await this.deposits.lockTxHash(manager, command.txHash);
      await this.expectations.lockOrder(manager, command.orderId);
      const expectation = await this.register(manager, command, sendBeforeMs);
      const deposit = expectation.txHash === null ? null : await this.claimHeld(manager, expectation);
      return { ...expectation, deposit };
    });
  }

  private async register(
    manager: EntityManager,
    command: ExpectUsdtDepositCommand,
    sendBeforeMs: number,
  ): Promise<UsdtDepositExpectationRecord> {
    const sendBefore = new Date(sendBeforeMs).toISOString();
    const known =
      (await this.expectations.find(manager, command.orderId)) ??
      (await this.expectations.insert(manager, { orderId: command.orderId, partnerId: command.partnerId, sendBefore }));
    if (known.partnerId !== command.partnerId || Date.parse(known.sendBefore) !== sendBeforeMs)
      throw new AppError('LEDGER_ID_REUSED');
    if (command.txHash === undefined || known.txHash === command.txHash) return known;
    if (known.txHash !== null) throw new AppError('LEDGER_ID_REUSED');
    const named = await this.expectations.setTxHash(manager, known, command.txHash);
    if (!named) throw new AppError('LEDGER_ID_REUSED');
    return named;
  }

  /** The deposit of the order's hash: claimed now if it is the partner's, held, and the expectation open. */
  private async claimHeld(
    manager: EntityManager,
    expectation: UsdtDepositExpectationRecord,
  ): Promise<UsdtDepositRecord | null> {
    const deposit = await this.deposits.find(manager, expectation.txHash!, true);
    if (!deposit || deposit.partnerId !== expectation.partnerId) return null;
    if (deposit.status === 'claimed') return deposit.orderId === expectation.orderId ? deposit : null;
    if (deposit.status !== 'held_for_attribution' || !expectation.open) return null;
    return this.deposits.markClaimed(manager, deposit.depositId, expectation.orderId);
  }
}

/** The instant send_before names, in ms; bad fields are refused together. */
function validate(command: ExpectUsdtDepositCommand): number {
  const sendBeforeMs = Date.parse(command.sendBefore);
  const bad = [
    ...(isUuid(command.partnerId) ? [] : ['partnerId']),
    ...(isUuid(command.orderId) ? [] : ['orderId']),
    ...(Number.isNaN(sendBeforeMs) ? ['sendBefore'] : []),
    ...(command.txHash === undefined || TX_HASH.test(command.txHash) ? [] : ['txHash']),
  ];
  if (bad.length > 0) throw validationFailed(bad);
  return sendBeforeMs;
}
