/**
 * Accounts and their rules. Balances are credit-positive: a credit raises an
 * account's balance, and the balances of all accounts of one currency sum to
 * zero. A partner account is money we owe the partner and never goes below
 * zero; service accounts (treasury, clearing, fee revenue, suspense) are
 * flagged for whether they may.
 */
import type { Currency } from '@platform/money';

export const PARTNER_CURRENCIES: readonly Currency[] = ['KES', 'USDT', 'USD'];

/** The service's own accounts, one per currency each. */
export const SERVICE_ACCOUNT_CODES = [
  'treasury',
  'fee_revenue',
  'bank_clearing',
  'chain_clearing',
  'usd_rails_clearing',
  'suspense',
] as const;
export type ServiceAccountCode = (typeof SERVICE_ACCOUNT_CODES)[number];

export interface AccountState {
  id: string;
  currency: Currency;
  partnerId: string | null;
  code: ServiceAccountCode | null;
  /** Decimal strings as stored. */
  posted: string;
  held: string;
  version: string;
  allowNegative: boolean;
}

/**
 * Readiness of a partner's KES collection account (its paybill virtual account at
 * the bank). Only `active` is offered for funding; trading refuses orders with
 * PARTNER_VA_NOT_ALLOCATED, PARTNER_VA_ACTIVATING or PARTNER_VA_SUSPENDED.
 */
export const KES_ACCOUNT_STATUSES = ['not_allocated', 'activating', 'active', 'suspended'] as const;
export type KesAccountStatus = (typeof KES_ACCOUNT_STATUSES)[number];

export function isKesAccountStatus(value: unknown): value is KesAccountStatus {
  return typeof value === 'string' && (KES_ACCOUNT_STATUSES as readonly string[]).includes(value);
}
