/** The USDT entries and the event of the deposit policy, shared by recording, releasing and (later) claiming. */
import { randomUUID } from 'node:crypto';
import { enqueueEvent } from '@platform/events';
import { Big } from '@platform/money';
import type { EntityManager } from '@platform/persistence';
import type { AccountsRepository } from '../../persistence/accounts.repository';
import { postEntry } from '../../persistence/journal.repository';
import type { UsdtDepositRecord } from '../../persistence/usdt-deposits.repository';
import { requestHash } from '../../domain/request-hash';

/** usdt_credit.received `data`: no sender, chain or counterparty. */
export interface UsdtCreditReceivedData {
  activityId: string;
  amount: { currency: 'USDT'; value: string };
  receivedAt: string;
}

/** Moves `amount` USDT from one account to another in one entry; returns the entry id. */
export async function moveUsdt(
  manager: EntityManager,
  move: { from: string; to: string; amount: Big; kind: string; partnerId: string | null; txHash: string },
): Promise<string> {
  const entryId = randomUUID();
  const metadata = { txHash: move.txHash };
  await postEntry(
    manager,
    {
      entryId,
      kind: move.kind,
      partnerId: move.partnerId,
      metadata,
      postings: [
        { accountId: move.to, currency: 'USDT', amount: move.amount },
        { accountId: move.from, currency: 'USDT', amount: move.amount.times(-1) },
      ],
    },
    requestHash({ kind: move.kind, txHash: move.txHash }),
  );
  return entryId;
}

export async function partnerUsdtAccount(
  accounts: AccountsRepository,
  manager: EntityManager,
  partnerId: string,
): Promise<string> {
  const set = await accounts.findPartnerAccounts(partnerId, manager);
  if (!set) throw new Error(`deposit for partner ${partnerId} without accounts`);
  return set.usdtAccountId;
}

/** The one usdt_credit.received of a deposit, in the transaction that credits the balance. */
export async function announceUsdtCredit(manager: EntityManager, deposit: UsdtDepositRecord): Promise<void> {
  await enqueueEvent<UsdtCreditReceivedData>(manager, {
    partnerId: deposit.partnerId!,
    type: 'usdt_credit.received',
    data: {
      activityId: deposit.depositId,
      amount: { currency: 'USDT', value: deposit.usdtAmount },
      receivedAt: deposit.receivedAt,
    },
  });
}
