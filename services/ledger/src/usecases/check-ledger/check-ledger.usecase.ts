import type { DataSource, EntityManager } from '@platform/persistence';
import { LedgerCheckMetrics } from './ledger-check-metrics';

export interface LedgerCheckResult {
  name: string;
  ok: boolean;
  problems: string[];
}

export interface LedgerReport {
  ok: boolean;
  checks: LedgerCheckResult[];
  checkedAt: string;
}

/** Problems listed per check at most; the check fails on the first anyway. */
const PROBLEMS_PER_CHECK_MAX = 20;
/**
 * Each check's statement may run this long: a check reads every posting or hold, seconds per
 * million postings, past the pool's statement timeout meant for requests (ops waits as long).
 */
const CHECK_STATEMENT_TIMEOUT_MS = 15 * 60_000;
/** Beyond the sweep interval, how late a sweep may run (its own duration, a busy database). */
const OVERDUE_GRACE_MS = 5_000;

interface CheckQuery {
  name: string;
  /** Each row returned is one problem, described by its `problem` column. */
  sql: string;
  parameters?: unknown[];
}

/**
 * The reconciliation report (`ops ledger check`). Every check reads one
 * consistent snapshot (REPEATABLE READ, read only); each row a query returns
 * is a problem. Full scans: an operator's tool, not a request path. Every run
 * is counted by its outcome (ledger-check-metrics.ts), which the alert on a
 * failing ledger check reads.
 */
export class CheckLedgerUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sweepIntervalMs: number,
    private readonly metrics: LedgerCheckMetrics = new LedgerCheckMetrics(),
  ) {}

  async execute(): Promise<LedgerReport> {
    const checks = await this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      await manager.query('SET TRANSACTION READ ONLY');
      await manager.query(`SET LOCAL statement_timeout = ${CHECK_STATEMENT_TIMEOUT_MS}`);
      const results: LedgerCheckResult[] = [];
      for (const check of this.queries()) results.push(await this.run(manager, check));
      return results;
    });
    const checkedAt = new Date();
    this.metrics.ran(checks, checkedAt.getTime());
    return { ok: checks.every((check) => check.ok), checks, checkedAt: checkedAt.toISOString() };
  }

  private async run(manager: EntityManager, check: CheckQuery): Promise<LedgerCheckResult> {
    const rows: { problem: string }[] = await manager.query(
      `${check.sql} LIMIT ${PROBLEMS_PER_CHECK_MAX}`,
      check.parameters ?? [],
    );
    return { name: check.name, ok: rows.length === 0, problems: rows.map((row) => row.problem) };
  }

  private queries(): CheckQuery[] {
    return [
      {
        name: 'currency_sums_to_zero',
        sql: `SELECT currency || ' accounts sum to ' || sum(posted)::text AS problem FROM accounts GROUP BY currency HAVING sum(posted) <> 0`,
      },
      {
        name: 'entries_balanced',
        sql: `SELECT 'entry ' || entry_id || ' sums to ' || sum(amount)::text || ' ' || currency AS problem FROM postings GROUP BY entry_id, currency HAVING sum(amount) <> 0`,
      },
      {
        name: 'partner_balances_non_negative',
        sql: `SELECT 'account ' || id || ' available ' || (posted - held)::text AS problem FROM accounts WHERE NOT allow_negative AND posted - held < 0`,
      },
      {
        name: 'posted_equals_postings',
        sql: `SELECT 'account ' || a.id || ' posted ' || a.posted::text || ' but postings sum to ' || coalesce(p.total, 0)::text AS problem
          FROM accounts a LEFT JOIN (SELECT account_id, sum(amount) AS total FROM postings GROUP BY account_id) p ON p.account_id = a.id
         WHERE a.posted <> coalesce(p.total, 0)`,
      },
      {
        name: 'held_equals_pending_holds',
        sql: `SELECT 'account ' || a.id || ' held ' || a.held::text || ' but pending holds sum to ' || coalesce(h.total, 0)::text AS problem
          FROM accounts a LEFT JOIN (SELECT account_id, sum(amount) AS total FROM holds WHERE status = 'pending' GROUP BY account_id) h ON h.account_id = a.id
         WHERE a.held <> coalesce(h.total, 0)`,
      },
      {
        name: 'no_overdue_holds',
        sql: `SELECT 'hold ' || id || ' pending past its expiry ' || expires_at::text AS problem FROM holds
         WHERE status = 'pending' AND expires_at < now() - $1 * interval '1 millisecond'`,
        parameters: [this.sweepIntervalMs + OVERDUE_GRACE_MS],
      },
      {
        name: 'posting_versions_contiguous',
        sql: `SELECT 'account ' || a.id || ' version ' || a.version::text || ' but ' || coalesce(p.n, 0)::text || ' postings up to version ' || coalesce(p.top, 0)::text AS problem
          FROM accounts a LEFT JOIN (SELECT account_id, count(*) AS n, max(version_after) AS top, min(version_after) AS bottom FROM postings GROUP BY account_id) p ON p.account_id = a.id
         WHERE coalesce(p.n, 0) <> a.version OR coalesce(p.top, 0) <> a.version OR coalesce(p.bottom, 1) <> 1`,
      },
      // A shard of a hot service account is one more row of its base: same currency, same floor.
      {
        name: 'service_shards_match_base',
        sql: `SELECT 'shard ' || s.id || ' of ' || b.id || ' differs from its base' AS problem
          FROM accounts s JOIN accounts b ON b.id = s.shard_of
         WHERE s.currency <> b.currency OR s.allow_negative <> b.allow_negative OR b.shard_of IS NOT NULL OR b.code IS NULL`,
      },
      // Each partner account's statement ends at its available balance, and its lines sum to it.
      {
        name: 'statement_matches_balances',
        sql: `SELECT 'account ' || a.id || ' available ' || (a.posted - a.held)::text || ' but its statement ends at '
            || coalesce(l.available_after, 0)::text || ' and its lines sum to ' || coalesce(s.total, 0)::text AS problem
          FROM accounts a
          LEFT JOIN LATERAL (SELECT available_after FROM statement_lines WHERE account_id = a.id ORDER BY created_at DESC, id DESC LIMIT 1) l ON true
          LEFT JOIN (SELECT account_id, sum(amount) AS total FROM statement_lines GROUP BY account_id) s ON s.account_id = a.id
         WHERE a.partner_id IS NOT NULL AND (coalesce(l.available_after, 0) <> a.posted - a.held OR coalesce(s.total, 0) <> a.posted - a.held)`,
      },
    ];
  }
}
