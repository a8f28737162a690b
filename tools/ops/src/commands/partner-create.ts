/**
 * `partner create`: onboards a partner across the services, in order:
 * gateway directory entry, trading profile, ledger accounts, wallet-registry
 * settings, first credential. The operator tool makes the partner id, and
 * steps 1 to 4 are idempotent on it, so a run that stops half-way is resumed
 * by running again with `--partner-id` (step 5, issuing the credential, makes
 * a new one each time it runs).
 */
import { randomUUID } from 'node:crypto';
import { Big } from '@platform/money';
import { CliError, EXIT_FAILED } from '../cli-error';
import type { OpsClients } from '../clients';
import { FlagReader, FlagValues } from '../flags';
import { errorReport, labelled } from '../output';
import { defineCommand, valueFlag } from './command';

export const BUY_MODES = ['debit_first', 'pay_in'] as const;
export const SELL_MODES = ['deposit', 'balance'] as const;
export type BuyMode = (typeof BUY_MODES)[number];
export type SellMode = (typeof SELL_MODES)[number];

const NAME_LENGTH_MAX = 200;
const FEE_BPS_MAX = 10_000;
const FEE_BPS_DEFAULT = 50;
const FEE_FLAT_KES_DEFAULT = '0.00';
const PER_ORDER_CAP_KES_DEFAULT = '1000000.00';
const DAILY_CAP_KES_DEFAULT = '5000000.00';
/** 0 asks the gateway for its configured default (120 a minute). */
const RATE_LIMIT_PER_MINUTE_DEFAULT = 0;
const RATE_LIMIT_PER_MINUTE_MAX = 100_000;
const NO_CAP = 'none';

export interface PartnerCreateInput {
  partnerId: string;
  name: string;
  adminDomain: string;
  buyMode: BuyMode;
  sellMode: SellMode;
  perOrderCapKes: string;
  dailyCapKes: string;
  rateLimitPerMinute: number;
  feeBps: number;
  feeFlatKes: string;
  /** undefined: no cap. */
  feeCapKes: string | undefined;
  /** undefined: the ledger's default, an active KES account. */
  kesAccountStatus?: 'not_allocated' | 'activating' | 'active';
  /** true: open the partner without a USDT deposit address (allocate one later). */
  withoutDepositAddress?: boolean;
}

/** `--kes-account` words and the ledger's KES account status each opens with. */
const KES_ACCOUNT_OPENING = { none: 'not_allocated', activating: 'activating', active: 'active' } as const;
const KES_ACCOUNT_CHOICES = Object.keys(KES_ACCOUNT_OPENING) as (keyof typeof KES_ACCOUNT_OPENING)[];
const DEPOSIT_ADDRESS_CHOICES = ['allocate', 'none'] as const;

export interface PartnerCreateResult {
  partnerId: string;
  apiKey: string;
  signingSecret: string;
  kesAccountId: string;
  usdtDepositAddress: string;
}

export function parsePartnerCreate(values: FlagValues, makeId: () => string = randomUUID): PartnerCreateInput {
  const flags = new FlagReader(values);
  const input: PartnerCreateInput = {
    partnerId: flags.uuid('partner-id', false) ?? makeId(),
    name: flags.text('name', NAME_LENGTH_MAX),
    adminDomain: flags.domain('admin-domain'),
    buyMode: flags.choice('buy-mode', BUY_MODES, 'debit_first'),
    sellMode: flags.choice('sell-mode', SELL_MODES, 'deposit'),
    perOrderCapKes: flags.kesAmount('per-order-cap-kes', { positive: true, fallback: PER_ORDER_CAP_KES_DEFAULT }),
    dailyCapKes: flags.kesAmount('daily-cap-kes', { positive: true, fallback: DAILY_CAP_KES_DEFAULT }),
    rateLimitPerMinute: flags.integer(
      'rate-limit-per-minute',
      { min: 1, max: RATE_LIMIT_PER_MINUTE_MAX },
      RATE_LIMIT_PER_MINUTE_DEFAULT,
    ),
    feeBps: flags.integer('fee-bps', { min: 0, max: FEE_BPS_MAX }, FEE_BPS_DEFAULT),
    feeFlatKes: flags.kesAmount('fee-flat-kes', { positive: false, fallback: FEE_FLAT_KES_DEFAULT }),
    feeCapKes: readFeeCap(flags, values),
    kesAccountStatus:
      values['kes-account'] === undefined
        ? undefined
        : KES_ACCOUNT_OPENING[flags.choice('kes-account', KES_ACCOUNT_CHOICES, 'active')],
    withoutDepositAddress:
      values['deposit-address'] === undefined
        ? undefined
        : flags.choice('deposit-address', DEPOSIT_ADDRESS_CHOICES, 'allocate') === 'none',
  };
  // Compared only when both caps parsed: a default standing in for a bad value would mislead.
  if (!flags.hasProblems() && new Big(input.perOrderCapKes).gt(input.dailyCapKes)) {
    flags.refuse('per-order-cap-kes', `must not exceed the daily cap of ${input.dailyCapKes}`);
  }
  flags.done();
  return input;
}

/** `none` (or no flag) means no cap. */
function readFeeCap(flags: FlagReader, values: FlagValues): string | undefined {
  const raw = values['fee-cap-kes'];
  if (raw === undefined || raw === NO_CAP) return undefined;
  return flags.kesAmount('fee-cap-kes', { positive: false, fallback: NO_CAP });
}

interface Step<T> {
  name: string;
  call: () => Promise<T>;
}

const STEP_COUNT = 5;

/** Runs one step; a failure says which step it was and how to resume. */
async function step<T>(index: number, partnerId: string, { name, call }: Step<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const report = errorReport(error);
    const resume = `running again is safe (steps 1 to 4 are idempotent on the partner id): re-run with --partner-id ${partnerId} and the same flags to resume`;
    throw new CliError(
      report.code,
      `step ${index} of ${STEP_COUNT} (${name}) failed: ${report.message}; ${resume}`,
      EXIT_FAILED,
      {
        partnerId,
        step: name,
      },
    );
  }
}

/** The ledger request: only the readiness options the operator named, so the ledger's defaults apply otherwise. */
function accountOpening(input: PartnerCreateInput) {
  return {
    partnerId: input.partnerId,
    ...(input.kesAccountStatus === undefined ? {} : { kesAccountStatus: input.kesAccountStatus }),
    ...(input.withoutDepositAddress === undefined ? {} : { withoutDepositAddress: input.withoutDepositAddress }),
  };
}

export async function runPartnerCreate(input: PartnerCreateInput, clients: OpsClients): Promise<PartnerCreateResult> {
  const { partnerId } = input;
  // Every address is resolved before the first call, so a missing one stops the run before anything exists.
  const gateway = clients.partnerAdmin();
  const trading = clients.tradingAdmin();
  const ledger = clients.ledger();
  const walletRegistry = clients.walletRegistryAdmin();
  await step(1, partnerId, {
    name: 'gateway.createPartner',
    call: () => gateway.createPartner({ partnerId, name: input.name, rateLimitPerMinute: input.rateLimitPerMinute }),
  });
  await step(2, partnerId, {
    name: 'trading.configurePartner',
    call: () =>
      trading.configurePartner({
        profile: {
          partnerId,
          status: 'active',
          buyMode: input.buyMode,
          sellMode: input.sellMode,
          feeBps: input.feeBps,
          feeFlatKes: input.feeFlatKes,
          feeCapKes: input.feeCapKes,
          perOrderCapKes: input.perOrderCapKes,
          dailyCapKes: input.dailyCapKes,
        },
      }),
  });
  const accounts = await step(3, partnerId, {
    name: 'ledger.openPartnerAccounts',
    call: () => ledger.openPartnerAccounts(accountOpening(input)),
  });
  await step(4, partnerId, {
    name: 'wallet-registry.configurePartner',
    call: () => walletRegistry.configurePartner({ settings: { partnerId, adminDomain: input.adminDomain } }),
  });
  // An empty scope list grants every scope (gateway.v1 IssueCredentialRequest).
  const credential = await step(5, partnerId, {
    name: 'gateway.issueCredential',
    call: () => gateway.issueCredential({ partnerId, scopes: [] }),
  });
  return {
    partnerId,
    apiKey: credential.apiKey,
    signingSecret: credential.signingSecret,
    kesAccountId: accounts.kesAccountId,
    usdtDepositAddress: accounts.usdtDepositAddress,
  };
}

export const partnerCreate = defineCommand<PartnerCreateInput, PartnerCreateResult>({
  name: 'partner create',
  summary: 'Onboard a partner: directory entry, trading profile, accounts, admin domain, first credential.',
  synopsis:
    '--name N --admin-domain D [--buy-mode debit_first|pay_in] [--sell-mode deposit|balance] [--per-order-cap-kes X] ' +
    '[--daily-cap-kes X] [--rate-limit-per-minute N] [--fee-bps N] [--fee-flat-kes X] [--fee-cap-kes X|none] [--partner-id UUID] ' +
    '[--kes-account active|activating|none] [--deposit-address allocate|none]',
  flags: {
    name: valueFlag(`N: the partner's name, 1 to ${NAME_LENGTH_MAX} characters (required)`),
    'admin-domain': valueFlag(
      'D: the exact e-mail domain of its administrators, a plain ASCII domain such as example.com (required)',
    ),
    'buy-mode': valueFlag(`${BUY_MODES.join('|')}: how buys are funded (default debit_first)`),
    'sell-mode': valueFlag(`${SELL_MODES.join('|')}: how sells are funded (default deposit)`),
    'per-order-cap-kes': valueFlag(
      `X: the per-order cap, a KES amount like 1000.00 above zero, at most the daily cap (default ${PER_ORDER_CAP_KES_DEFAULT})`,
    ),
    'daily-cap-kes': valueFlag(
      `X: the rolling 24-hour cap, a KES amount above zero (default ${DAILY_CAP_KES_DEFAULT})`,
    ),
    'rate-limit-per-minute': valueFlag(
      `N: requests a minute, an integer from 1 to ${RATE_LIMIT_PER_MINUTE_MAX} (default: the gateway's, 120)`,
    ),
    'fee-bps': valueFlag(
      `N: the trading fee's percentage part in basis points, an integer from 0 to ${FEE_BPS_MAX} (default ${FEE_BPS_DEFAULT})`,
    ),
    'fee-flat-kes': valueFlag(`X: the trading fee's flat part, a KES amount (default ${FEE_FLAT_KES_DEFAULT})`),
    'fee-cap-kes': valueFlag(`X|${NO_CAP}: the trading fee's cap, a KES amount, or ${NO_CAP} (default ${NO_CAP})`),
    'partner-id': valueFlag(
      'UUID: resume a run that stopped half-way, with the partner id it printed (default: a new id)',
    ),
    'kes-account': valueFlag(`${KES_ACCOUNT_CHOICES.join('|')}: the KES account's state at opening (default active)`),
    'deposit-address': valueFlag(
      `${DEPOSIT_ADDRESS_CHOICES.join('|')}: allocate a USDT deposit address now, or not (default allocate)`,
    ),
  },
  parse: (values) => parsePartnerCreate(values),
  run: runPartnerCreate,
  describe: (result) =>
    [
      `Partner ${result.partnerId} created.`,
      labelled([
        ['KES account', result.kesAccountId],
        ['USDT deposit address', result.usdtDepositAddress],
        ['API key', result.apiKey],
        ['Signing secret', result.signingSecret],
      ]),
      'The signing secret is shown this once and cannot be read again: store it now.',
    ].join('\n'),
});
