/**
 * Shared tools of the reliability specs: the documented error envelope, a
 * partner's observable state (through the API and, read-only, the stack's
 * databases) to prove that nothing was written, and small timing helpers.
 */
import { Pool } from 'pg';
import { HttpResult, loadTestStack, PartnerHttpClient } from '@platform/testing';

/** The reads whose answers make up a partner's state as the partner sees it. */
export const STATE_READS = [
  '/v1/balances',
  '/v1/wallets',
  '/v1/admins',
  '/v1/sandbox/outbox',
  '/v1/payout-destinations',
] as const;
const POOL_CONNECTIONS_MAX = 2;
const IDENT = /^[a-z_][a-z0-9_]*$/;

/** Asserts the error envelope: exactly {statusCode, message, error, requestId}, requestId = X-Request-Id. */
export function expectEnvelope(result: HttpResult, context: string): void {
  const requestId = result.headers.get('x-request-id');
  const body = result.body as Record<string, unknown> | undefined;
  const problem = !requestId
    ? 'no X-Request-Id'
    : !body || typeof body !== 'object'
      ? 'no JSON body'
      : Object.keys(body).sort().join(',') !== 'error,message,requestId,statusCode'
        ? `keys ${Object.keys(body).join(',')}`
        : body.statusCode !== result.status
          ? `statusCode ${String(body.statusCode)}`
          : body.requestId !== requestId
            ? 'requestId differs from X-Request-Id'
            : typeof body.message !== 'string' || typeof body.error !== 'string'
              ? 'message/error not strings'
              : null;
  if (problem)
    throw new Error(
      `${context}: answer ${result.status} is not the documented envelope (${problem}): ${result.text.slice(0, 300)}`,
    );
}

/** A refusal the contract documents for hostile input: a 4xx envelope, and not an authentication or throttling one. */
export function expectDocumentedRefusal(result: HttpResult, context: string, allowed: readonly number[]): void {
  if (!allowed.includes(result.status)) {
    throw new Error(
      `${context}: answered ${result.status} (expected one of ${allowed.join(', ')}): ${result.text.slice(0, 300)}`,
    );
  }
  expectEnvelope(result, context);
  if (result.status === 400 && !String(result.body.message).startsWith('Validation failed on: ')) {
    throw new Error(`${context}: a 400 that is not a validation refusal: ${result.text.slice(0, 300)}`);
  }
}

/** The partner's state as the API shows it (every read in STATE_READS). */
export async function apiState(
  client: PartnerHttpClient,
  reads: readonly string[] = STATE_READS,
): Promise<Record<string, string>> {
  // Read at once: the answers are the same in any order, and a snapshot is taken twice per fuzzed route.
  const answers = await Promise.all(reads.map((path) => client.get(path)));
  const state: Record<string, string> = {};
  reads.forEach((path, index) => {
    const result = answers[index]!;
    if (result.status !== 200) throw new Error(`GET ${path} answered ${result.status}: ${result.text}`);
    state[path] = result.text;
  });
  return state;
}

/**
 * Row counts of everything the stack's databases hold for a partner: every
 * table with a partner_id column in every service database (outboxes, ledger
 * entries, quotes, administrators, wallets, messages, deliveries…), plus the
 * ledger postings on the partner's accounts. Read-only. New tables are covered
 * as soon as they have a partner_id column.
 */
export class PartnerRows {
  private readonly pools = new Map<string, Pool>();

  constructor() {
    for (const [name, url] of Object.entries(loadTestStack().databases)) {
      this.pools.set(name, new Pool({ connectionString: url, max: POOL_CONNECTIONS_MAX }));
    }
  }

  async counts(partnerId: string): Promise<Record<string, number>> {
    // One statement per database, the databases at once: the same counts as a query per table, in far fewer round trips.
    const perDatabase = await Promise.all(
      [...this.pools].map(async ([database, pool]) => {
        const tables = await pool.query<{ table_name: string }>(
          `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'partner_id' ORDER BY table_name`,
        );
        const names = tables.rows.map((row) => row.table_name);
        const bad = names.find((table) => !IDENT.test(table));
        if (bad !== undefined) throw new Error(`unexpected table name ${bad}`);
        if (names.length === 0) return [];
        const result = await pool.query<Record<string, string>>(
          `SELECT ${names.map((table) => `(SELECT count(*) FROM ${table} WHERE partner_id = $1)::text AS "${table}"`).join(', ')}`,
          [partnerId],
        );
        return names.map((table) => [`${database}.${table}`, Number(result.rows[0]![table])] as const);
      }),
    );
    const counts: Record<string, number> = Object.fromEntries(perDatabase.flat());
    const ledger = this.pools.get('ledger');
    if (ledger) {
      const postings = await ledger.query<{ n: string }>(
        'SELECT count(*)::text AS n FROM postings p JOIN accounts a ON a.id = p.account_id WHERE a.partner_id = $1',
        [partnerId],
      );
      counts['ledger.postings(partner accounts)'] = Number(postings.rows[0].n);
    }
    return counts;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.end()));
  }
}

/** The partner's whole observable state: API answers and database row counts. */
export async function partnerSnapshot(client: PartnerHttpClient, rows: PartnerRows, partnerId: string) {
  return { api: await apiState(client), rows: await rows.counts(partnerId) };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
