// Proves the payout worker's gating: while the ledger (or trading, or the bank)
// looks unreachable it claims no instruction, so a replica with a healthy path
// takes them; once reachable it claims and runs the steps; and an instruction
// whose step meets an unavailable ledger is given back at once (lease cleared,
// attempt uncounted), with the rest of its batch once the ledger reads unreachable.
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { DataSource, EntityManager } from '@platform/persistence';
import { allReachable } from '@platform/grpc';
import type { InstructionRecord, PayoutInstructionsRepository } from '../persistence/payout-instructions.repository';
import { PayoutInstructionsRepository as Repository } from '../persistence/payout-instructions.repository';
import type { PayoutSteps } from '../usecases/run-payouts/payout-steps';
import { PayoutWorker } from './payout.worker';

const logger = { info() {}, warn() {}, error() {}, child: () => logger } as unknown as Logger;

function setUp(ids: string[], run: (instruction: InstructionRecord) => Promise<void>) {
  const released: string[][] = [];
  let claims = 0;
  const manager = {
    query: async (sql: string, [ids]: [string[]]) => {
      expect(sql).toMatch(/^UPDATE payout_instructions SET next_attempt_at = now\(\), attempts = greatest/);
      released.push(ids);
      return [[], ids.length];
    },
  } as unknown as EntityManager;
  const dataSource = {
    manager,
    transaction: (work: (m: EntityManager) => Promise<unknown>) => work(manager),
  } as unknown as DataSource;
  const instructions = {
    dueRows: new Repository({} as DataSource).dueRows,
    claimDue: async () => {
      claims += 1;
      return ids.map(
        (instructionId) => ({ instructionId, status: 'pending', leaseToken: 'claimed' }) as InstructionRecord,
      );
    },
  } as unknown as PayoutInstructionsRepository;
  const ledger = { reachable: () => true };
  const trading = { reachable: () => true };
  const worker = new PayoutWorker(
    {
      dataSource,
      instructions,
      steps: { run, reportStuck: async () => undefined } as unknown as PayoutSteps,
      ready: allReachable(ledger, trading, {}),
      logger,
    },
    { intervalMs: 60_000, batchSize: 10, leaseMs: 30_000 },
  );
  return { worker, ledger, trading, released, claims: () => claims };
}

describe('PayoutWorker', () => {
  it('claims nothing while the ledger or trading is unreachable, and claims once both are back', async () => {
    const ran: string[] = [];
    const { worker, ledger, trading, claims } = setUp(['i1'], async (instruction) => {
      ran.push(instruction.instructionId);
    });
    ledger.reachable = () => false;
    expect(await worker.runOnce()).toBe('gated');
    ledger.reachable = () => true;
    trading.reachable = () => false;
    expect(await worker.runOnce()).toBe('gated');
    expect(claims()).toBe(0);
    trading.reachable = () => true;
    expect(await worker.runOnce()).toBe('idle');
    expect(claims()).toBe(1);
    expect(ran).toEqual(['i1']);
  });

  it('gives an instruction back at once when its step meets an unavailable ledger, and the rest once the ledger reads unreachable', async () => {
    const ran: string[] = [];
    const context = setUp(['i1', 'i2', 'i3', 'i4'], async (instruction) => {
      ran.push(instruction.instructionId);
      if (instruction.instructionId === 'i2') throw new AppError('SERVICE_UNAVAILABLE');
      if (instruction.instructionId === 'i3') {
        context.ledger.reachable = () => false; // its breaker opened
        throw new AppError('SERVICE_UNAVAILABLE');
      }
    });
    expect(await context.worker.runOnce()).toBe('unavailable');
    expect(ran).toEqual(['i1', 'i2', 'i3']);
    expect(context.released).toEqual([['i2', 'i3', 'i4']]);
  });
});
