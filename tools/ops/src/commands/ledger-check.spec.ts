// Proves `ledger check` builds its input from no flags (strict parsing refuses others), exits 1 exactly when a check failed, names each failing problem, and waits for the report longer than other calls.
import type { OpsClients } from '../clients';
import { CALL_DEADLINE_MS } from '../clients';
import { LEDGER_CHECK_DEADLINE_MS, ledgerCheck, parseLedgerCheck } from './ledger-check';

const report = (ok: boolean) => ({
  ok,
  checkedAt: '2026-01-01T00:00:00.000Z',
  checks: [
    { name: 'currency_sums_to_zero', ok: true, problems: [] },
    { name: 'no_overdue_holds', ok, problems: ok ? [] : ['hold h1 pending past its expiry'] },
  ],
});

describe('ledger check', () => {
  it('takes no flags', () => {
    expect(parseLedgerCheck({})).toEqual({});
  });

  it('exits 1 only when a check failed, and says which', () => {
    expect(ledgerCheck.exitStatus!(report(true))).toBe(0);
    expect(ledgerCheck.exitStatus!(report(false))).toBe(1);
    expect(ledgerCheck.describe(report(false))).toContain(
      'FAIL  no_overdue_holds\n          hold h1 pending past its expiry',
    );
  });

  it('asks the ledger with its own deadline, longer than every other call', async () => {
    const checkLedger = jest.fn(async () => report(true));
    const clients = { ledger: () => ({ checkLedger }) } as unknown as OpsClients;
    await ledgerCheck.run({}, clients);
    expect(checkLedger).toHaveBeenCalledWith({}, { deadlineMs: LEDGER_CHECK_DEADLINE_MS });
    expect(LEDGER_CHECK_DEADLINE_MS).toBeGreaterThan(CALL_DEADLINE_MS);
  });
});
