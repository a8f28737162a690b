/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer, PromiseClient } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { ledger, payouts } from '@platform/proto';
import type { BankAdapter } from './adapters/bank/bank';
import { orderPayoutsHandlers } from './grpc/order-payouts.handlers';
import { PayoutInstructionsRepository } from './persistence/payout-instructions.repository';
import { PayOrderProceedsUseCase } from './usecases/pay-order-proceeds/pay-order-proceeds.usecase';
import { PayoutRunner, PayoutRunnerOptions } from './usecases/run-payouts/run-payouts';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  ledger: Pick<PromiseClient<typeof ledger.LedgerService>, 'getPayoutDestination'>;
  bank: BankAdapter;
  runner: PayoutRunnerOptions;
}

/** Serves payouts.v1.OrderPayouts (sell-order proceeds); transfers and sends arrive with issue 6. */
export function createServer(deps: ServerDependencies): { server: GrpcServer; runner: PayoutRunner } {
  const server = createGrpcServer(deps.logger);
  const instructions = new PayoutInstructionsRepository(deps.dataSource);
  const runner = new PayoutRunner(
    { dataSource: deps.dataSource, instructions, ledger: deps.ledger, bank: deps.bank, logger: deps.logger.child({ context: 'PayoutRunner' }) },
    deps.runner,
  );
  server.add(payouts.OrderPayoutsService, orderPayoutsHandlers({
    payOrderProceeds: new PayOrderProceedsUseCase(instructions, () => runner.kick()),
    instructions,
  }));
  return { server, runner };
}
