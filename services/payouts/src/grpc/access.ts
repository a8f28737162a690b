/**
 * Who may call each payouts RPC (service identities, spiffe://platform/<name>),
 * enforced by @platform/grpc before any handler runs. The gateway reaches the
 * partner-facing transfers, sends, batches and funding prompts; stuck
 * instructions and unlocking a partner's confirmations to `ops`. Nothing here
 * admits trading: payouts calls it (the daily cap, sell orders' proceeds), never
 * the reverse (OrderPayouts, deprecated, is not served). Amend an entry when a
 * caller starts or stops calling.
 */
import type { AccessTable } from '@platform/grpc';
import type { payouts, payoutsFunding } from '@platform/proto';

export const PAYOUTS_ACCESS = {
  TRANSFERS: {
    createTransfer: ['gateway'],
    getTransfer: ['gateway'],
    confirm: ['gateway'],
    resendConfirmation: ['gateway'],
    listTransfers: ['gateway'],
  } satisfies AccessTable<typeof payouts.TransfersService>,
  OPERATOR: {
    listStuckInstructions: ['ops'],
    unlockPartnerConfirmations: ['ops'],
  } satisfies AccessTable<typeof payouts.PayoutsOperatorService>,
  USDT_SENDS: {
    createUsdtSend: ['gateway'],
    getUsdtSend: ['gateway'],
    listUsdtSends: ['gateway'],
  } satisfies AccessTable<typeof payouts.UsdtSendsService>,
  TRANSFER_BATCHES: {
    createTransferBatch: ['gateway'],
    getTransferBatch: ['gateway'],
    listTransferBatches: ['gateway'],
  } satisfies AccessTable<typeof payouts.TransferBatchesService>,
  FUNDING: { createMobileMoneyPush: ['gateway'], listMobileMoneyPushes: ['gateway'] } satisfies AccessTable<
    typeof payoutsFunding.MobileMoneyFundingService
  >,
  FUNDING_SANDBOX: {
    approveMobileMoneyPush: ['gateway'],
    declineMobileMoneyPush: ['gateway'],
  } satisfies AccessTable<typeof payoutsFunding.MobileMoneyFundingSandboxService>,
} as const;
