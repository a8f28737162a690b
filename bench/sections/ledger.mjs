// The ledger's money paths over gRPC (`npm run bench:ledger`, bench/ledger.mjs) against this
// run's stack, beside pgbench running the entry's shape on the same PostgreSQL.
import { step } from '../../scripts/lib/steps.mjs';
import { childBench } from '../lib/child-bench.mjs';
import { ledgerCeiling } from '../ledger-ceiling.mjs';

const SECTION = 'ledger over gRPC beside pgbench running the entry shape';

export async function ledgerSection(ctx) {
  const result = await childBench('ledger.mjs', 'ledger-', { BENCH_STACK_FILE: ctx.stackFile });
  const ceiling = await step('ledger ceiling: pgbench, entry shape', () =>
    ledgerCeiling(ctx.description.postgres.urlTemplate, result.results[0].concurrency, ctx.options.durationS),
  );
  for (const scenario of result.results) {
    const shape = scenario.scenario.includes('hot') ? 'hot' : 'spread';
    ctx.rows.push({
      section: SECTION,
      figure: `${scenario.scenario} ops/s (p50 / p99 ${scenario.p50Ms} / ${scenario.p99Ms} ms)`,
      value: scenario.perSecond,
      ceiling: `pgbench entry shape, ${shape === 'hot' ? '1 hot account' : `${ceiling.spreadAccounts} accounts`}, ${ceiling.clients} clients tps`,
      ceilingValue: ceiling[shape].tps,
    });
  }
  return { ...result, ceiling };
}
