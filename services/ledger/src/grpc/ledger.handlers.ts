import { AppError } from '@platform/errors';
import { type AsyncImplementation, pageText } from '@platform/grpc';
import type { ListAuditRecordsUseCase } from '@platform/persistence';
import { ledger } from '@platform/proto';
import type { KesCreditRecord } from '../persistence/kes-credits.repository';
import { type GetBalancesUseCase, toPartnerBalance } from '../usecases/get-balances/get-balances.usecase';
import type { ListStatementUseCase } from '../usecases/list-statement/list-statement.usecase';
import type { OpenPartnerAccountsUseCase } from '../usecases/open-partner-accounts/open-partner-accounts.usecase';
import type { RecordKesCreditUseCase } from '../usecases/record-kes-credit/record-kes-credit.usecase';
import type { SimulateKesCreditUseCase } from '../usecases/simulate-kes-credit/simulate-kes-credit.usecase';
import type { PaymentReferencesUseCase } from '../usecases/payment-references/payment-references.usecase';
import type { AccountsRepository } from '../persistence/accounts.repository';
import { LedgerMoneyDeps, ledgerMoneyHandlers } from './ledger-money.handlers';
import { toPartnerAccountsMessage } from './presenters';
import { LedgerAccountsDeps, ledgerAccountsHandlers } from './ledger-accounts.handlers';
import type { KesAccountStatus } from '../domain/account';
import type { UsdtDepositRecord } from '../persistence/usdt-deposits.repository';
import type { ClaimUsdtDepositUseCase } from '../usecases/claim-usdt-deposit/claim-usdt-deposit.usecase';
import type {
  ExpectUsdtDepositUseCase,
  UsdtDepositExpectation,
} from '../usecases/expect-usdt-deposit/expect-usdt-deposit.usecase';
import type { RecordUsdtDepositUseCase } from '../usecases/record-usdt-deposit/record-usdt-deposit.usecase';
import type { SimulateUsdtDepositUseCase } from '../usecases/simulate-usdt-deposit/simulate-usdt-deposit.usecase';

export function toKesCreditMessage(record: KesCreditRecord): ledger.KesCredit {
  return {
    transactionId: record.transactionId,
    partnerId: record.partnerId ?? '',
    accountId: record.accountId,
    amount: { currency: 'KES', value: record.amountKes },
    rail: record.rail,
    railReference: record.railReference ?? undefined,
    receivedAt: record.receivedAt,
    entryId: record.entryId,
    bankTransactionId: record.bankTransactionId,
    paymentReference: record.paymentReference ?? undefined,
  };
}

export function ledgerHandlers(deps: {
  accounts: AccountsRepository;
  openPartnerAccounts: OpenPartnerAccountsUseCase;
  getBalances: GetBalancesUseCase;
  listStatement: ListStatementUseCase;
  recordKesCredit: RecordKesCreditUseCase;
  money: LedgerMoneyDeps;
  accountsAdmin: LedgerAccountsDeps;
  recordUsdtDeposit: RecordUsdtDepositUseCase;
  claimUsdtDeposit: ClaimUsdtDepositUseCase;
  expectUsdtDeposit: ExpectUsdtDepositUseCase;
  paymentReferences: PaymentReferencesUseCase;
  listAuditRecords: ListAuditRecordsUseCase;
}): AsyncImplementation<typeof ledger.LedgerService> {
  return {
    listAuditRecords: (request) => deps.listAuditRecords.execute(request),
    registerPaymentReference: async (request) => deps.paymentReferences.register(request),
    listCreditsByReference: async (request) => ({
      credits: (await deps.paymentReferences.listCredits(request)).map(toKesCreditMessage),
    }),
    recordUsdtDeposit: async (request) => toUsdtDepositMessage(await deps.recordUsdtDeposit.execute(request)),
    claimUsdtDeposit: async (request) => toUsdtDepositMessage(await deps.claimUsdtDeposit.execute(request)),
    expectUsdtDeposit: async (request) => toExpectationMessage(await deps.expectUsdtDeposit.execute(request)),
    ...ledgerMoneyHandlers(deps.money),
    ...ledgerAccountsHandlers(deps.accountsAdmin),
    async openPartnerAccounts(request) {
      return toPartnerAccountsMessage(
        await deps.openPartnerAccounts.execute({
          partnerId: request.partnerId,
          kesAccountStatus: request.kesAccountStatus as KesAccountStatus | undefined,
          withoutDepositAddress: request.withoutDepositAddress ?? false,
        }),
      );
    },
    async getPartnerAccounts(request) {
      if (request.withKesBalance) {
        const found = await deps.accounts.findPartnerAccountsWithKesBalance(request.partnerId);
        if (!found) throw new AppError('PARTNER_VA_NOT_ALLOCATED');
        return { ...toPartnerAccountsMessage(found.accounts), kesBalance: toPartnerBalance(found.kesBalance) };
      }
      const set = await deps.accounts.findPartnerAccounts(request.partnerId);
      if (!set) throw new AppError('PARTNER_VA_NOT_ALLOCATED');
      return toPartnerAccountsMessage(set);
    },
    async getBalances(request) {
      return { balances: await deps.getBalances.execute({ partnerId: request.partnerId }) };
    },
    async listStatement(request) {
      if (!request.asJsonArray) return { ...(await deps.listStatement.execute(request)), pageJson: Buffer.alloc(0) };
      const page = await deps.listStatement.executeAsJsonArray(request);
      return page.json === undefined
        ? { lines: page.lines, nextCursor: page.nextCursor, pageJson: Buffer.alloc(0) }
        : { lines: [], nextCursor: page.nextCursor, pageJson: pageText(page.json) };
    },
    async recordKesCredit(request) {
      return toKesCreditMessage(
        await deps.recordKesCredit.execute({
          bankTransactionId: request.bankTransactionId,
          accountReference: request.accountReference,
          amountKes: request.amountKes,
          rail: request.rail,
          railReference: request.railReference ?? null,
          receivedAt: request.receivedAt,
        }),
      );
    },
  };
}

export function toUsdtDepositMessage(record: UsdtDepositRecord): ledger.UsdtDeposit {
  return {
    depositId: record.depositId,
    txHash: record.txHash,
    partnerId: record.partnerId ?? '',
    usdtAmount: record.usdtAmount,
    status: record.status,
    holdUntil: record.holdUntil ?? undefined,
    orderId: record.orderId ?? undefined,
    receivedAt: record.receivedAt,
    creditedAt: record.creditedAt ?? undefined,
  };
}

function toExpectationMessage(expectation: UsdtDepositExpectation): ledger.UsdtDepositExpectation {
  return {
    partnerId: expectation.partnerId,
    orderId: expectation.orderId,
    sendBefore: expectation.sendBefore,
    txHash: expectation.txHash ?? undefined,
    open: expectation.open,
    deposit: expectation.deposit ? toUsdtDepositMessage(expectation.deposit) : undefined,
  };
}

export function ledgerSandboxHandlers(deps: {
  simulateKesCredit: SimulateKesCreditUseCase;
  simulateUsdtDeposit: SimulateUsdtDepositUseCase;
}): AsyncImplementation<typeof ledger.LedgerSandboxService> {
  return {
    async simulateUsdtDeposit(request) {
      return toUsdtDepositMessage(await deps.simulateUsdtDeposit.execute(request));
    },
    async simulateKesCredit(request) {
      return toKesCreditMessage(
        await deps.simulateKesCredit.execute({
          partnerId: request.partnerId,
          amountKes: request.amountKes,
          railReference: request.railReference ?? null,
        }),
      );
    },
  };
}
