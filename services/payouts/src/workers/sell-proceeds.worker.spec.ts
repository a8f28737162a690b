// Proves the sell-proceeds worker end to end with fakes at the edges (trading's
// client and the instruction store): while trading looks unreachable it claims
// nothing; once reachable it claims a batch, makes each order's instruction
// (instruction id = order id) and reports what the instruction is now
// (accepted, settled, failed with its code); a claim repeated after the bank
// answered reports the final outcome of the same instruction, never a second
// one; an order whose instruction is refused does not stop the others; and a
// trading that stops answering mid-batch backs the worker off.
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { allReachable } from '@platform/grpc';
import type { DueSellProceeds, TradingSellProceedsApi } from '../adapters/peers/peers';
import type { InstructionRecord } from '../persistence/payout-instructions.repository';
import { PaySellProceedsUseCase } from '../usecases/pay-sell-proceeds/pay-sell-proceeds.usecase';
import { sellProceedsWorker } from './sell-proceeds.worker';

const logger = { info() {}, warn() {}, error: jest.fn(), child: () => logger } as unknown as Logger;

function due(index: number): DueSellProceeds {
  const orderId = `00000000-0000-4000-8000-00000000000${index}`;
  return {
    orderId,
    partnerId: '11111111-1111-4111-8111-111111111111',
    payoutDestinationId: '22222222-2222-4222-8222-222222222222',
    amountKes: '1274.07',
    instructionId: orderId,
  };
}

type Report = Parameters<TradingSellProceedsApi['recordSellProceedsOutcome']>[0];

function setUp(claims: DueSellProceeds[][], instructionStatus: (orderId: string) => Partial<InstructionRecord>) {
  const reports: Report[] = [];
  const made: string[] = [];
  const trading = {
    reachable: jest.fn(() => true),
    claimDueSellProceeds: jest.fn(async ({ limit }: { limit: number }) => ({
      proceeds: (claims.shift() ?? []).slice(0, limit),
    })),
    recordSellProceedsOutcome: jest.fn(async (report: Report) => {
      reports.push(report);
      return { orderStatus: 'funds_reserved' };
    }),
  };
  const payOrderProceeds = {
    execute: jest.fn(async (command: { instructionId: string; orderId: string }) => {
      made.push(command.instructionId);
      return { instructionId: command.instructionId, ...instructionStatus(command.orderId) } as InstructionRecord;
    }),
  };
  const worker = sellProceedsWorker({
    pay: new PaySellProceedsUseCase({ trading, payOrderProceeds, logger }),
    logger,
    intervalMs: 60_000,
    batchSize: 2,
    ready: allReachable(trading),
  });
  return { worker, trading, payOrderProceeds, reports, made };
}

describe('the sell-proceeds worker', () => {
  it('claims nothing while trading looks unreachable', async () => {
    const { worker, trading } = setUp([[due(1)]], () => ({ status: 'pending', failureCode: null }));
    trading.reachable.mockReturnValue(false);
    expect(await worker.runOnce()).toBe('gated');
    expect(trading.claimDueSellProceeds).not.toHaveBeenCalled();
  });

  it('makes each instruction under the order id and reports it as it stands, batch after full batch', async () => {
    const statuses: Record<string, Partial<InstructionRecord>> = {
      [due(1).orderId]: { status: 'submitted', failureCode: null },
      [due(2).orderId]: { status: 'settled', failureCode: null },
      [due(3).orderId]: { status: 'failed', failureCode: 'PROVIDER_REJECTED' },
    };
    const { worker, trading, payOrderProceeds, reports } = setUp([[due(1), due(2)], [due(3)]], (id) => statuses[id]);
    expect(await worker.runOnce()).toBe('idle');
    expect(trading.claimDueSellProceeds.mock.calls).toEqual([[{ limit: 2 }], [{ limit: 2 }]]);
    expect(payOrderProceeds.execute).toHaveBeenCalledWith({
      instructionId: due(1).orderId,
      partnerId: due(1).partnerId,
      orderId: due(1).orderId,
      payoutDestinationId: due(1).payoutDestinationId,
      amountKes: '1274.07',
    });
    expect(reports).toEqual([
      { orderId: due(1).orderId, instructionId: due(1).orderId, outcome: 'accepted' },
      { orderId: due(2).orderId, instructionId: due(2).orderId, outcome: 'settled' },
      { orderId: due(3).orderId, instructionId: due(3).orderId, outcome: 'failed', failureCode: 'PROVIDER_REJECTED' },
    ]);
  });

  it('reports the same instruction final when the order is claimed again after the bank answered', async () => {
    let status: InstructionRecord['status'] = 'pending';
    const { worker, reports, made } = setUp([[due(1)], [due(1)]], () => ({ status, failureCode: null }));
    await worker.runOnce();
    status = 'settled';
    await worker.runOnce();
    expect(made).toEqual([due(1).orderId, due(1).orderId]);
    expect(reports.map((report) => report.outcome)).toEqual(['accepted', 'settled']);
  });

  it("goes on with the batch when one order's instruction is refused", async () => {
    const { worker, payOrderProceeds, reports } = setUp([[due(1), due(2)]], () => ({
      status: 'pending',
      failureCode: null,
    }));
    payOrderProceeds.execute.mockRejectedValueOnce(new AppError('PAYOUT_INSTRUCTION_ID_REUSED'));
    expect(await worker.runOnce()).toBe('idle');
    expect(reports.map((report) => report.orderId)).toEqual([due(2).orderId]);
    expect(logger.error).toHaveBeenCalledWith(expect.stringMatching(/claimed again after its lease/), {
      orderId: due(1).orderId,
      code: 'PAYOUT_INSTRUCTION_ID_REUSED',
      error: undefined,
    });
  });

  it('backs off when trading stops answering mid-batch', async () => {
    const { worker, trading, reports } = setUp([[due(1), due(2)]], () => ({ status: 'pending', failureCode: null }));
    trading.recordSellProceedsOutcome.mockRejectedValueOnce(new AppError('SERVICE_UNAVAILABLE'));
    expect(await worker.runOnce()).toBe('unavailable');
    expect(reports).toEqual([]);
  });
});
