/**
 * Operator switches kept by trading:
 * `partner suspend|resume` (orders refused with PARTNER_SUSPENDED while
 * suspended), `kill-switch on|off` (KILL_SWITCH_ENGAGED), `swaps on|off`
 * (SWAPS_DISABLED) and `treasury set-state` (TREASURY_ACCOUNT_UNAVAILABLE /
 * TREASURY_ACCOUNT_NOT_REGISTERED while a treasury account is out).
 */
import { FlagReader, FlagValues } from '../flags';
import { labelled } from '../output';
import { AnyCommand, defineCommand, PARTNER_FLAG, valueFlag } from './command';

export const TREASURY_CURRENCIES = ['KES', 'USDT'] as const;
export const TREASURY_STATES = ['available', 'unavailable', 'not_registered'] as const;

function parsePartner(values: FlagValues): { partnerId: string } {
  const flags = new FlagReader(values);
  const input = { partnerId: flags.uuid('partner', true) };
  flags.done();
  return input;
}

function partnerStatusCommand(verb: 'suspend' | 'resume'): AnyCommand {
  const status = verb === 'suspend' ? 'suspended' : 'active';
  return defineCommand<{ partnerId: string }, { partnerId: string; status: string }>({
    name: `partner ${verb}`,
    summary:
      verb === 'suspend'
        ? 'Suspend a partner: its order creates are refused with PARTNER_SUSPENDED.'
        : 'Let a suspended partner create orders again.',
    synopsis: '--partner ID',
    flags: { partner: PARTNER_FLAG },
    parse: parsePartner,
    run: (input, clients) => clients.tradingOperator().setPartnerStatus({ partnerId: input.partnerId, status }),
    describe: (result) => `Partner ${result.partnerId} is ${result.status}.`,
  });
}

function parseNothing(values: FlagValues): Record<string, never> {
  new FlagReader(values).done();
  return {};
}

function onOffCommand(noun: 'kill-switch' | 'swaps', value: 'on' | 'off'): AnyCommand {
  const name = noun === 'kill-switch' ? 'kill_switch' : 'swaps';
  const key = noun === 'kill-switch' ? 'killSwitch' : 'swaps';
  return defineCommand<Record<string, never>, Record<string, string>>({
    name: `${noun} ${value}`,
    summary:
      noun === 'kill-switch'
        ? `${value === 'on' ? 'Halt' : 'Resume'} USDT/KES movement platform-wide (orders refused with KILL_SWITCH_ENGAGED while on).`
        : `${value === 'on' ? 'Enable' : 'Disable'} swaps platform-wide (orders refused with SWAPS_DISABLED while off).`,
    synopsis: '',
    flags: {},
    parse: parseNothing,
    run: async (_input, clients) => {
      const result = await clients.tradingOperator().setPlatformSwitch({ name, value });
      return { [key]: result.value };
    },
    describe: (result) => `${noun} is ${result[key]}.`,
  });
}

export interface TreasurySetStateInput {
  currency: (typeof TREASURY_CURRENCIES)[number];
  state: (typeof TREASURY_STATES)[number];
}

export function parseTreasurySetState(values: FlagValues): TreasurySetStateInput {
  const flags = new FlagReader(values);
  const input = {
    currency: flags.choice('currency', TREASURY_CURRENCIES, 'KES'),
    state: flags.choice('state', TREASURY_STATES, 'available'),
  };
  if (values.currency === undefined) flags.refuse('currency', 'required');
  if (values.state === undefined) flags.refuse('state', 'required');
  flags.done();
  return input;
}

export const treasurySetState = defineCommand<TreasurySetStateInput, { currency: string; state: string }>({
  name: 'treasury set-state',
  summary:
    "Record the state of the service's settlement (treasury) account of a currency; orders are refused while it is not available.",
  synopsis: `--currency ${TREASURY_CURRENCIES.join('|')} --state ${TREASURY_STATES.join('|')}`,
  flags: {
    currency: valueFlag(`${TREASURY_CURRENCIES.join('|')}: the treasury account's currency (required)`),
    state: valueFlag(`${TREASURY_STATES.join('|')}: its state (required)`),
  },
  parse: parseTreasurySetState,
  run: async (input, clients) => {
    const result = await clients
      .tradingOperator()
      .setPlatformSwitch({ name: `treasury_${input.currency.toLowerCase()}`, value: input.state });
    return { currency: input.currency, state: result.value };
  },
  describe: (result) =>
    labelled([
      ['Treasury account', result.currency],
      ['State', result.state],
    ]),
});

export const tradingSwitchCommands: readonly AnyCommand[] = [
  partnerStatusCommand('suspend'),
  partnerStatusCommand('resume'),
  onOffCommand('kill-switch', 'on'),
  onOffCommand('kill-switch', 'off'),
  onOffCommand('swaps', 'on'),
  onOffCommand('swaps', 'off'),
  treasurySetState,
];
