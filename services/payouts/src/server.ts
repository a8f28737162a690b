/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer, PromiseClient } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { ledger, payouts, payoutsFunding } from '@platform/proto';
import type { BankAdapter, MobileMoneyPushBank } from './adapters/bank/bank';
import { mobileMoneyFundingHandlers, mobileMoneyFundingSandboxHandlers } from './grpc/funding.handlers';
import { orderPayoutsHandlers } from './grpc/order-payouts.handlers';
import { MobileMoneyPushesRepository } from './persistence/mobile-money-pushes.repository';
import { PayoutInstructionsRepository } from './persistence/payout-instructions.repository';
import { PayOrderProceedsUseCase } from './usecases/pay-order-proceeds/pay-order-proceeds.usecase';
import { PayoutRunner, PayoutRunnerOptions } from './usecases/run-payouts/run-payouts';
import { AnswerMobileMoneyPushUseCase } from './usecases/funding/answer-mobile-money-push.usecase';
import { CreateMobileMoneyPushUseCase } from './usecases/funding/create-mobile-money-push.usecase';
import { PushCreditRunner, PushCreditRunnerOptions } from './usecases/funding/push-credit-runner';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  ledger: Pick<PromiseClient<typeof ledger.LedgerService>, 'getPayoutDestination' | 'getPartnerAccounts' | 'recordKesCredit'>;
  bank: BankAdapter & MobileMoneyPushBank;
  runner: PayoutRunnerOptions;
  funding: { mode: 'sandbox' | 'production'; pushLifetimeMs: number; creditRunner: PushCreditRunnerOptions };
}

/** Serves payouts.v1.OrderPayouts (sell-order proceeds); transfers and sends arrive with issue 6. */
export function createServer(deps: ServerDependencies): { server: GrpcServer; runner: PayoutRunner; pushCredits: PushCreditRunner } {
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
  const pushCredits = addFunding(server, deps);
  return { server, runner, pushCredits };
}

/** payouts.v1.MobileMoneyFunding (and its sandbox helpers): the mobile-money funding prompt. */
function addFunding(server: GrpcServer, deps: ServerDependencies): PushCreditRunner {
  const pushes = new MobileMoneyPushesRepository(deps.dataSource);
  const logger = deps.logger.child({ context: 'MobileMoneyFunding' });
  const pushCredits = new PushCreditRunner({ dataSource: deps.dataSource, pushes, ledger: deps.ledger, logger }, deps.funding.creditRunner);
  server.add(payoutsFunding.MobileMoneyFundingService, mobileMoneyFundingHandlers({
    createPush: new CreateMobileMoneyPushUseCase({ pushes, ledger: deps.ledger, bank: deps.bank, lifetimeMs: deps.funding.pushLifetimeMs, logger }),
  }));
  server.add(payoutsFunding.MobileMoneyFundingSandboxService, mobileMoneyFundingSandboxHandlers({
    answerPush: deps.funding.mode === 'sandbox' ? new AnswerMobileMoneyPushUseCase(pushes, pushCredits) : null,
  }));
  return pushCredits;
}
