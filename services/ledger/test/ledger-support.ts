/** Helpers for the ledger's integration tests: a gRPC client, funding a partner, and direct checks of svc_ledger. */
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { PromiseClient } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { ledger } from '@platform/proto';
import { loadTestStack, routedClient } from '@platform/testing';
import { LEDGER_ACCESS } from '../src/grpc/access';

const logger = createLogger('ledger-int-test', 'error');

export type LedgerClient = PromiseClient<typeof ledger.LedgerService>;

/** Each call is made as an identity the ledger's allow-list admits for it (trading for holds and entries, ops for history…). */
export function ledgerClient(address?: string): LedgerClient {
  return routedClient(ledger.LedgerService, LEDGER_ACCESS.LEDGER, { upstream: 'ledger', address, logger });
}

export function ledgerPool(): Pool {
  return new Pool({ connectionString: loadTestStack().databases.ledger, max: 2 });
}

/** Credits a partner's KES account through the bank notification path. */
export async function fundKes(client: LedgerClient, partnerId: string, amountKes: string): Promise<void> {
  const accounts = await client.getPartnerAccounts({ partnerId });
  await client.recordKesCredit({
    bankTransactionId: `BANK-${randomUUID()}`,
    accountReference: accounts.kesAccountReference,
    amountKes,
    rail: 'mobile_money_paybill',
    receivedAt: new Date().toISOString(),
  });
}

export async function kesBalance(client: LedgerClient, partnerId: string): Promise<ledger.Balance> {
  const { balances } = await client.getBalances({ partnerId });
  return balances.find((balance) => balance.currency === 'KES')!;
}

/** The error code a rejected call carried. */
export async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
  return 'resolved';
}

/**
 * The double-entry invariants read straight from svc_ledger: every currency's
 * accounts sum to zero, and every entry's postings sum to zero per currency.
 */
export async function expectLedgerBalanced(pool: Pool): Promise<void> {
  const currencies = await pool.query(
    `SELECT currency, sum(posted)::text AS total FROM accounts GROUP BY currency HAVING sum(posted) <> 0`,
  );
  expect(currencies.rows).toEqual([]);
  const entries = await pool.query(
    `SELECT entry_id, currency FROM postings GROUP BY entry_id, currency HAVING sum(amount) <> 0`,
  );
  expect(entries.rows).toEqual([]);
  const negative = await pool.query(`SELECT id FROM accounts WHERE NOT allow_negative AND posted - held < 0`);
  expect(negative.rows).toEqual([]);
}

/** What a ledger spec shares: a client, a pool on svc_ledger and the treasury's KES account, all set in beforeAll. */
export interface LedgerSpec {
  client: LedgerClient;
  pool: Pool;
  treasuryKes: string;
}

/**
 * Registers a spec's shared hooks: opens the client and pool before all, checks the ledger balanced
 * after each test (or once after all, for specs whose tests read the same history), closes both after all.
 */
export function useLedgerSpec(options: { balancedAfter: 'each' | 'all' } = { balancedAfter: 'each' }): LedgerSpec {
  const spec = {} as LedgerSpec;
  beforeAll(async () => {
    spec.client = ledgerClient();
    spec.pool = ledgerPool();
    spec.treasuryKes = (await spec.client.getServiceAccount({ code: 'treasury', currency: 'KES' })).accountId;
  });
  if (options.balancedAfter === 'each') afterEach(() => expectLedgerBalanced(spec.pool));
  afterAll(async () => {
    if (options.balancedAfter === 'all') await expectLedgerBalanced(spec.pool);
    spec.client?.close();
    await spec.pool?.end();
  });
  return spec;
}
