/**
 * `kes-account set-status` and `deposit-address allocate`: what the bank and
 * the chain custodian report about a partner's readiness. Trading refuses
 * orders while the KES account is not active (PARTNER_VA_NOT_ALLOCATED,
 * PARTNER_VA_ACTIVATING, PARTNER_VA_SUSPENDED) and sell deposits while no
 * address is allocated (USDT_DEPOSIT_ADDRESS_NOT_ALLOCATED).
 */
import type { ledger } from '@platform/proto';
import { FlagReader, FlagValues } from '../flags';
import { labelled } from '../output';
import { defineCommand, PARTNER_FLAG, valueFlag } from './command';

export const KES_ACCOUNT_STATUSES = ['not_allocated', 'activating', 'active', 'suspended'] as const;
type KesAccountStatus = (typeof KES_ACCOUNT_STATUSES)[number];

export interface KesAccountSetStatusInput {
  partnerId: string;
  status: KesAccountStatus;
}

export function parseKesAccountSetStatus(values: FlagValues): KesAccountSetStatusInput {
  const flags = new FlagReader(values);
  const input = {
    partnerId: flags.uuid('partner', true),
    status: flags.choice('status', KES_ACCOUNT_STATUSES, 'active'),
  };
  if (values.status === undefined) flags.refuse('status', 'required');
  flags.done();
  return input;
}

export function parseDepositAddressAllocate(values: FlagValues): { partnerId: string } {
  const flags = new FlagReader(values);
  const input = { partnerId: flags.uuid('partner', true) };
  flags.done();
  return input;
}

const describeAccounts = (accounts: ledger.PartnerAccounts) =>
  [
    `Partner ${accounts.partnerId}:`,
    labelled([
      ['KES account status', accounts.kesAccountStatus],
      ['USDT deposit address', accounts.usdtDepositAddress || '(none)'],
    ]),
  ].join('\n');

export const kesAccountSetStatus = defineCommand<KesAccountSetStatusInput, ledger.PartnerAccounts>({
  name: 'kes-account set-status',
  summary: "Record the bank's state of a partner's KES collection account.",
  synopsis: `--partner ID --status ${KES_ACCOUNT_STATUSES.join('|')}`,
  flags: {
    partner: PARTNER_FLAG,
    status: valueFlag(`${KES_ACCOUNT_STATUSES.join('|')}: the account's state as the bank reports it (required)`),
  },
  parse: parseKesAccountSetStatus,
  run: (input, clients) => clients.ledger().setKesAccountStatus(input),
  describe: describeAccounts,
});

export const depositAddressAllocate = defineCommand<{ partnerId: string }, ledger.PartnerAccounts>({
  name: 'deposit-address allocate',
  summary: 'Allocate a USDT deposit address to a partner that has none (a partner keeps the one it has).',
  synopsis: '--partner ID',
  flags: { partner: PARTNER_FLAG },
  parse: parseDepositAddressAllocate,
  run: (input, clients) => clients.ledger().allocateDepositAddress(input),
  describe: describeAccounts,
});
