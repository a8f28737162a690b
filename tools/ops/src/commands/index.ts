/** Every command the tool knows, by the words that select it. */
import type { AnyCommand } from './command';
import { auditList } from './audit-list';
import { credentialIssue } from './credential-issue';
import { credentialRevoke } from './credential-revoke';
import { deliveriesList } from './deliveries-list';
import { deliveriesReplay } from './deliveries-replay';
import { ledgerCheck } from './ledger-check';
import { depositAddressAllocate, kesAccountSetStatus } from './account-readiness';
import { payoutDestinationAdd, payoutDestinationSetStatus } from './payout-destination';
import { partnerCreate } from './partner-create';
import { webhookSet } from './webhook-set';
import { collectionsConfigure } from './collections-configure';
import { tradingSwitchCommands } from './trading-switches';
import { walletApprove, walletReject } from './wallet-review';
import { payoutsStuck } from './payouts-stuck';
import { confirmationsUnlock } from './confirmations-unlock';
import { secretsReseal } from './secrets-reseal';

export const COMMANDS: readonly AnyCommand[] = [
  partnerCreate,
  credentialIssue,
  credentialRevoke,
  webhookSet,
  deliveriesList,
  deliveriesReplay,
  walletApprove,
  walletReject,
  ledgerCheck,
  kesAccountSetStatus,
  depositAddressAllocate,
  payoutDestinationAdd,
  payoutDestinationSetStatus,
  collectionsConfigure,
  ...tradingSwitchCommands,
  payoutsStuck,
  confirmationsUnlock,
  secretsReseal,
  auditList,
];

export function findCommand(noun: string | undefined, verb: string | undefined): AnyCommand | undefined {
  return COMMANDS.find((command) => command.name === `${noun} ${verb}`);
}
