/** Every command the tool knows, by the words that select it. */
import type { AnyCommand } from './command';
import { credentialIssue } from './credential-issue';
import { credentialRevoke } from './credential-revoke';
import { deliveriesList } from './deliveries-list';
import { ledgerCheck } from './ledger-check';
import { depositAddressAllocate, kesAccountSetStatus } from './account-readiness';
import { payoutDestinationAdd, payoutDestinationSetStatus } from './payout-destination';
import { partnerCreate } from './partner-create';
import { webhookSet } from './webhook-set';

export const COMMANDS: readonly AnyCommand[] = [partnerCreate, credentialIssue, credentialRevoke, webhookSet, deliveriesList, ledgerCheck,
  kesAccountSetStatus, depositAddressAllocate, payoutDestinationAdd, payoutDestinationSetStatus];

export function findCommand(noun: string | undefined, verb: string | undefined): AnyCommand | undefined {
  return COMMANDS.find((command) => command.name === `${noun} ${verb}`);
}
