/**
 * What a single transfer and each item of a transfer batch both run: the row
 * claimed for the key, then the checks as saga steps (name lookup, code
 * recipient, the shared daily cap, the hold of amount + fee). The name lookup
 * only records what the bank holds: a name the bank does not match is never
 * refused here; the bank refuses it when the confirmed transfer is handed to
 * it (transfer.failed, TRANSFER_NAME_MISMATCH).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '@platform/logger';
import { Big, formatAmount } from '@platform/money';
import type { DataSource } from '@platform/persistence';
import { Saga, SagaStep } from '@platform/saga';
import type { BankAdapter } from '../../adapters/bank/bank';
import type { CodeRecipient, LedgerApi, TradingLimitsApi, WalletRegistryApi } from '../../adapters/peers/peers';
import { holdOwner } from '../../domain/hold-owner';
import { holdAmountKes } from '../../domain/transfer-fee';
import type { TransferRequest } from '../../domain/transfer-request';
import type { NewTransfer, TransferRecord, TransfersRepository } from '../../persistence/transfers.repository';
import { claimedRowStep, placeHoldStep, reserveDailyCapStep } from './create-steps';

export interface TransferCheckDependencies {
  dataSource: DataSource;
  transfers: TransfersRepository;
  bank: Pick<BankAdapter, 'verifyName'>;
  ledger: Pick<LedgerApi, 'getPartnerAccounts' | 'placeHold' | 'voidHold' | 'getHold'>;
  trading: TradingLimitsApi;
  walletRegistry: Pick<WalletRegistryApi, 'getCodeRecipient'>;
}

/** What the checks found that the code step needs. */
export interface TransferChecked {
  recipient: CodeRecipient | null;
}

/** The row a transfer (or a batch item) claims for its key. */
export function newTransferRow(
  partnerId: string,
  request: TransferRequest,
  requestHash: string,
  feeKes: Big,
): NewTransfer {
  return {
    transferId: randomUUID(),
    partnerId,
    idempotencyKey: request.idempotencyKey,
    requestHash,
    partnerReference: request.partnerReference,
    rail: request.rail,
    accountNumber: request.accountNumber,
    accountName: request.accountName,
    bankCode: request.bankCode,
    amountKes: formatAmount(request.amountKes, 'KES'),
    feeKes: formatAmount(feeKes, 'KES'),
  };
}

/** A saga for one transfer: a compensation that fails is left to the scheduler, once the create's lease passes. */
export function transferSaga(logger: Logger, transferId: string): Saga {
  return new Saga(({ error }) =>
    logger.warn('refused transfer not yet undone; the scheduler finishes it', { transferId, error }),
  );
}

/** The claimed row, name lookup, recipient, daily cap and hold; `checked` receives the code recipient. */
export function transferCheckSteps(
  deps: TransferCheckDependencies,
  transfer: TransferRecord,
  request: TransferRequest,
  checked: TransferChecked,
): SagaStep[] {
  let kesAccountId = '';
  return [
    claimedRowStep(() => deps.transfers.deleteCreating(deps.dataSource.manager, transfer.transferId)),
    {
      name: 'look up the account name',
      run: async () => {
        kesAccountId = await recordNameLookup(deps, transfer, request);
      },
    },
    // No administrator: refused before any value is held.
    {
      name: 'find the code recipient',
      run: async () => {
        checked.recipient = await deps.walletRegistry.getCodeRecipient({ partnerId: transfer.partnerId });
      },
    },
    reserveDailyCapStep(deps.trading, {
      usageId: transfer.transferId,
      partnerId: transfer.partnerId,
      source: 'transfer',
      amountKes: transfer.amountKes,
    }),
    placeHoldStep(
      deps.ledger,
      transfer.transferId,
      () => ({
        accountId: kesAccountId,
        amount: formatAmount(holdAmountKes(request.amountKes, new Big(transfer.feeKes)), 'KES'),
        metadata: { transferId: transfer.transferId, kind: 'transfer' },
        owner: holdOwner('transfer', transfer.transferId),
      }),
      'INSUFFICIENT_KES_BALANCE',
    ),
  ];
}

/** Asks the bank for the name behind the account and records it; answers the partner's KES account. */
async function recordNameLookup(
  deps: TransferCheckDependencies,
  transfer: TransferRecord,
  request: TransferRequest,
): Promise<string> {
  const verification = await deps.bank.verifyName({
    rail: request.rail,
    accountNumber: request.accountNumber,
    accountName: request.accountName,
    bankCode: request.bankCode,
  });
  const accounts = await deps.ledger.getPartnerAccounts({ partnerId: transfer.partnerId });
  await deps.transfers.recordVerification(
    deps.dataSource.manager,
    transfer.transferId,
    verification.outcome,
    verification.outcome === 'verified' ? verification.accountName : null,
    accounts.kesAccountId,
  );
  return accounts.kesAccountId;
}
