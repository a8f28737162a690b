/**
 * Operator switches stored by trading. Absent
 * rows mean the default: kill switch off, swaps on, treasury accounts available.
 */
import { validationFailed } from '@platform/errors';

export const SWITCH_VALUES = {
  kill_switch: ['on', 'off'],
  swaps: ['on', 'off'],
  treasury_kes: ['available', 'unavailable', 'not_registered'],
  treasury_usdt: ['available', 'unavailable', 'not_registered'],
} as const;

export type SwitchName = keyof typeof SWITCH_VALUES;

export const SWITCH_DEFAULTS: Readonly<Record<SwitchName, string>> = {
  kill_switch: 'off',
  swaps: 'on',
  treasury_kes: 'available',
  treasury_usdt: 'available',
};

export type PlatformSwitches = Record<SwitchName, string>;

export function parseSwitch(name: string, value: string): { name: SwitchName; value: string } {
  if (!Object.prototype.hasOwnProperty.call(SWITCH_VALUES, name)) throw validationFailed(['name']);
  const allowed = SWITCH_VALUES[name as SwitchName] as readonly string[];
  if (!allowed.includes(value)) throw validationFailed(['value']);
  return { name: name as SwitchName, value };
}

/** The treasury refusal for a currency's account state, or null when it is available. */
export function treasuryRefusal(
  state: string,
): 'TREASURY_ACCOUNT_UNAVAILABLE' | 'TREASURY_ACCOUNT_NOT_REGISTERED' | null {
  if (state === 'unavailable') return 'TREASURY_ACCOUNT_UNAVAILABLE';
  if (state === 'not_registered') return 'TREASURY_ACCOUNT_NOT_REGISTERED';
  return null;
}
