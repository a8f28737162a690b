/**
 * `ledger check`: the ledger's reconciliation report. Every currency sums to
 * zero, every entry balances, no partner account below zero, held equals the
 * pending holds, no hold overdue, contiguous posting versions. Exits 1 when any
 * check fails, after printing which and why.
 */
import type { ledger } from '@platform/proto';
import { EXIT_FAILED, EXIT_OK } from '../cli-error';
import { FlagReader, FlagValues } from '../flags';
import { defineCommand } from './command';

export type LedgerCheckInput = Record<string, never>;

/**
 * The reconciliation reads every posting and hold (seconds per million postings), so it
 * gets longer than the other calls' deadline; the ledger bounds it the same way.
 */
export const LEDGER_CHECK_DEADLINE_MS = 15 * 60_000;

export function parseLedgerCheck(values: FlagValues): LedgerCheckInput {
  new FlagReader(values).done();
  return {};
}

function describeCheck(check: ledger.LedgerCheck): string[] {
  return [`  ${check.ok ? 'ok  ' : 'FAIL'}  ${check.name}`, ...check.problems.map((problem) => `          ${problem}`)];
}

export const ledgerCheck = defineCommand<LedgerCheckInput, ledger.CheckLedgerResponse>({
  name: 'ledger check',
  summary: 'Reconcile the ledger; exits 1 when any check fails.',
  synopsis: '',
  flags: {},
  parse: parseLedgerCheck,
  run: (_input, clients) => clients.ledger().checkLedger({}, { deadlineMs: LEDGER_CHECK_DEADLINE_MS }),
  describe: (report) =>
    [
      `Ledger ${report.ok ? 'reconciles' : 'DOES NOT reconcile'} (${report.checkedAt}):`,
      ...report.checks.flatMap(describeCheck),
    ].join('\n'),
  exitStatus: (report) => (report.ok ? EXIT_OK : EXIT_FAILED),
});
