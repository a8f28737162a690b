/** Holds, entries, service accounts, history and the reconciliation report: translation only. */
import { AppError, isAppError, validationFailed } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import { isUuid } from '@platform/ids';
import { currentContext } from '@platform/logger';
import { Big, formatAmount, isCurrency } from '@platform/money';
import { ledger } from '@platform/proto';
import { SERVICE_ACCOUNT_CODES, ServiceAccountCode } from '../domain/account';
import type { AccountsRepository } from '../persistence/accounts.repository';
import type { EntryRecord } from '../persistence/entries.repository';
import type { HoldRecord, HoldsRepository } from '../persistence/holds.repository';
import type { DataSource } from '@platform/persistence';
import type { CheckLedgerUseCase } from '../usecases/check-ledger/check-ledger.usecase';
import type { ListAccountHistoryUseCase } from '../usecases/list-account-history/list-account-history.usecase';
import type { ListOwnedHoldsUseCase } from '../usecases/list-owned-holds/list-owned-holds.usecase';
import type { PlaceHoldUseCase } from '../usecases/place-hold/place-hold.usecase';
import type { PostEntryUseCase } from '../usecases/post-entry/post-entry.usecase';
import type { PostHoldUseCase } from '../usecases/post-hold/post-hold.usecase';
import type { VoidHoldUseCase } from '../usecases/void-hold/void-hold.usecase';

type MoneyMethods =
  | 'placeHold'
  | 'postHold'
  | 'postHolds'
  | 'voidHold'
  | 'getHold'
  | 'listOwnedHolds'
  | 'postEntry'
  | 'getServiceAccount'
  | 'listAccountHistory'
  | 'checkLedger';

export interface LedgerMoneyDeps {
  dataSource: DataSource;
  accounts: AccountsRepository;
  holds: HoldsRepository;
  placeHold: PlaceHoldUseCase;
  postHold: PostHoldUseCase;
  voidHold: VoidHoldUseCase;
  listOwnedHolds: ListOwnedHoldsUseCase;
  postEntry: PostEntryUseCase;
  listAccountHistory: ListAccountHistoryUseCase;
  checkLedger: CheckLedgerUseCase;
}

export function toHoldMessage(hold: HoldRecord): ledger.Hold {
  return {
    holdId: hold.holdId,
    accountId: hold.accountId,
    currency: hold.currency,
    amount: hold.amount,
    status: hold.status,
    postedAmount: hold.postedAmount,
    expiresAt: hold.expiresAt ?? undefined,
    entryId: hold.entryId ?? undefined,
    createdAt: hold.createdAt,
    resolvedAt: hold.resolvedAt ?? undefined,
    metadata: hold.metadata,
    owner: hold.owner ?? undefined,
  };
}

/** Who is calling: set from the certificate before any handler runs; an allow-listed call always has one. */
function callerOf(method: string): string {
  const { caller } = currentContext();
  if (!caller) throw new Error(`${method} served without a caller identity`);
  return caller;
}

export function toEntryMessage(entry: EntryRecord): ledger.Entry {
  return {
    entryId: entry.entryId,
    kind: entry.kind,
    partnerId: entry.partnerId ?? undefined,
    postings: entry.postings,
    createdAt: entry.createdAt,
    metadata: entry.metadata,
  };
}

async function serviceAccount(
  deps: LedgerMoneyDeps,
  request: ledger.GetServiceAccountRequest,
): Promise<ledger.ServiceAccount> {
  const code = request.code as ServiceAccountCode;
  if (!SERVICE_ACCOUNT_CODES.includes(code) || !isCurrency(request.currency)) {
    throw validationFailed([
      ...(SERVICE_ACCOUNT_CODES.includes(code) ? [] : ['code']),
      ...(isCurrency(request.currency) ? [] : ['currency']),
    ]);
  }
  const accountId = await deps.accounts.serviceAccountId(code, request.currency);
  // Summed over the account's shards: the balance the account holds as a whole.
  const row = await deps.accounts.serviceBalance(accountId);
  return {
    accountId,
    code,
    currency: request.currency,
    posted: formatAmount(new Big(row.posted), request.currency),
    held: formatAmount(new Big(row.held), request.currency),
  };
}

export function ledgerMoneyHandlers(
  deps: LedgerMoneyDeps,
): Pick<AsyncImplementation<typeof ledger.LedgerService>, MoneyMethods> {
  return {
    async placeHold(request) {
      return toHoldMessage(
        await deps.placeHold.execute({
          holdId: request.holdId,
          accountId: request.accountId,
          amount: request.amount,
          expiresAt: request.expiresAt ?? null,
          metadata: request.metadata,
          owner: request.owner ?? null,
          caller: currentContext().caller ?? null,
        }),
      );
    },
    async postHold(request) {
      return toHoldMessage(
        await deps.postHold.execute({
          holdId: request.holdId,
          postAmount: request.postAmount,
          counterPostings: request.counterPostings,
          kind: request.kind,
          metadata: request.metadata,
        }),
      );
    },
    async postHolds(request) {
      const outcomes = await deps.postHold.executeMany(
        request.holds.map((hold) => ({
          holdId: hold.holdId,
          postAmount: hold.postAmount,
          counterPostings: hold.counterPostings,
          kind: hold.kind,
          metadata: hold.metadata,
        })),
      );
      return {
        outcomes: outcomes.map((outcome) =>
          isAppError(outcome)
            ? { hold: undefined, errorCode: outcome.code }
            : { hold: toHoldMessage(outcome), errorCode: '' },
        ),
      };
    },
    async voidHold(request) {
      return toHoldMessage(await deps.voidHold.execute({ holdId: request.holdId }));
    },
    async getHold(request) {
      if (!isUuid(request.holdId)) throw validationFailed(['holdId']);
      const hold = await deps.holds.find(deps.dataSource, request.holdId);
      if (!hold) throw new AppError('LEDGER_HOLD_NOT_FOUND');
      return toHoldMessage(hold);
    },
    async listOwnedHolds(request) {
      const holds = await deps.listOwnedHolds.execute({
        caller: callerOf('listOwnedHolds'),
        placedBefore: request.placedBefore,
        afterHoldId: request.afterHoldId ?? null,
        limit: request.limit,
      });
      return { holds: holds.map(toHoldMessage) };
    },
    async postEntry(request) {
      return toEntryMessage(
        await deps.postEntry.execute({
          entryId: request.entryId,
          kind: request.kind,
          partnerId: request.partnerId ?? null,
          postings: request.postings,
          metadata: request.metadata,
        }),
      );
    },
    getServiceAccount: (request) => serviceAccount(deps, request),
    async listAccountHistory(request) {
      const result = await deps.listAccountHistory.execute({
        accountId: request.accountId,
        cursor: request.page?.cursor ?? '',
        limit: request.page?.limit ?? 0,
      });
      return {
        items: result.items.map(({ postingId: _postingId, ...item }) => item),
        page: { nextCursor: result.nextCursor },
      };
    },
    async checkLedger() {
      return deps.checkLedger.execute();
    },
  };
}
