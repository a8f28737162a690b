/**
 * `payout-destination add` registers a KES payout destination for a partner
 * (partners never register them); `payout-destination set-status` closes,
 * freezes or reactivates one. Only active destinations are listed to the
 * partner or payable. The full account number goes to the ledger only; the
 * tool prints it masked.
 */
import type { ledger } from '@platform/proto';
import { FlagReader, FlagValues } from '../flags';
import { labelled } from '../output';
import { defineCommand, PARTNER_FLAG, valueFlag } from './command';

export const PAYOUT_RAILS = ['mobile_money', 'pesalink', 'rtgs', 'eft'] as const;
export const PAYOUT_DESTINATION_STATUSES = ['active', 'closed', 'frozen'] as const;
const ACCOUNT_NAME_CHARS_MAX = 100;
const ACCOUNT_NUMBER_CHARS_MAX = 20;
const BANK_CODE_CHARS_MAX = 6;

export interface PayoutDestinationAddInput {
  partnerId: string;
  rail: (typeof PAYOUT_RAILS)[number];
  accountName: string;
  accountNumber: string;
  bankCode?: string;
}

export function parsePayoutDestinationAdd(values: FlagValues): PayoutDestinationAddInput {
  const flags = new FlagReader(values);
  const bankCode = values['bank-code'] === undefined ? undefined : flags.text('bank-code', BANK_CODE_CHARS_MAX);
  const input = {
    partnerId: flags.uuid('partner', true),
    rail: flags.choice('rail', PAYOUT_RAILS, bankCode === undefined ? 'mobile_money' : 'pesalink'),
    accountName: flags.text('account-name', ACCOUNT_NAME_CHARS_MAX),
    accountNumber: flags.text('account-number', ACCOUNT_NUMBER_CHARS_MAX),
    ...(bankCode === undefined ? {} : { bankCode }),
  };
  flags.done();
  return input;
}

export function parsePayoutDestinationSetStatus(values: FlagValues): {
  id: string;
  status: (typeof PAYOUT_DESTINATION_STATUSES)[number];
} {
  const flags = new FlagReader(values);
  const input = { id: flags.uuid('id', true), status: flags.choice('status', PAYOUT_DESTINATION_STATUSES, 'active') };
  if (values.status === undefined) flags.refuse('status', 'required');
  flags.done();
  return input;
}

/** What the tool prints: never the full account number. */
function masked(destination: ledger.PayoutDestination) {
  return { ...destination, accountNumber: `****${destination.accountNumber.slice(-4)}` };
}

const describeDestination = (destination: ReturnType<typeof masked>) =>
  [
    `Payout destination ${destination.id}:`,
    labelled([
      ['partner', destination.partnerId],
      ['rail', destination.rail],
      ['account', `${destination.accountName} ${destination.accountNumber}`],
      ['bank code', destination.bankCode ?? '-'],
      ['status', destination.status],
    ]),
  ].join('\n');

export const payoutDestinationAdd = defineCommand<PayoutDestinationAddInput, ReturnType<typeof masked>>({
  name: 'payout-destination add',
  summary:
    'Register a KES payout destination for a partner (default rail: mobile_money, or pesalink with --bank-code).',
  synopsis: `--partner ID --account-number N --account-name S [--bank-code C] [--rail ${PAYOUT_RAILS.join('|')}]`,
  flags: {
    partner: PARTNER_FLAG,
    'account-number': valueFlag(
      `N: the account (or mobile) number, 1 to ${ACCOUNT_NUMBER_CHARS_MAX} characters (required)`,
    ),
    'account-name': valueFlag(`S: the account holder's name, 1 to ${ACCOUNT_NAME_CHARS_MAX} characters (required)`),
    'bank-code': valueFlag(`C: the bank's code, 1 to ${BANK_CODE_CHARS_MAX} characters (bank rails)`),
    rail: valueFlag(`${PAYOUT_RAILS.join('|')}: the payout rail (default mobile_money, or pesalink with --bank-code)`),
  },
  parse: parsePayoutDestinationAdd,
  run: async (input, clients) => masked(await clients.ledger().addPayoutDestination(input)),
  describe: describeDestination,
});

export const payoutDestinationSetStatus = defineCommand<
  { id: string; status: (typeof PAYOUT_DESTINATION_STATUSES)[number] },
  ReturnType<typeof masked>
>({
  name: 'payout-destination set-status',
  summary: 'Close, freeze or reactivate a payout destination; payouts to a closed or frozen one are refused.',
  synopsis: `--id ID --status ${PAYOUT_DESTINATION_STATUSES.join('|')}`,
  flags: {
    id: valueFlag("ID: the payout destination's id, a UUID (required)"),
    status: valueFlag(`${PAYOUT_DESTINATION_STATUSES.join('|')}: its new status (required)`),
  },
  parse: parsePayoutDestinationSetStatus,
  run: async (input, clients) => masked(await clients.ledger().setPayoutDestinationStatus(input)),
  describe: describeDestination,
});
