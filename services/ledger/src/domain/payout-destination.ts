/**
 * Payout destinations: KES accounts the service registered for a partner.
 * Rails: `mobile_money` (an M-Pesa wallet, the number in 2547XXXXXXXX/2541XXXXXXXX
 * form, no bank code) and the bank rails `pesalink` (instant, up to the bank's
 * per-transfer limit), `rtgs` (same-day, large values) and `eft` (next-day
 * batch), each with the bank's code. Only `active` ones are payable or listed.
 */
export const PAYOUT_RAILS = ['mobile_money', 'pesalink', 'rtgs', 'eft'] as const;
export type PayoutRail = (typeof PAYOUT_RAILS)[number];
export const PAYOUT_DESTINATION_STATUSES = ['active', 'closed', 'frozen'] as const;
export type PayoutDestinationStatus = (typeof PAYOUT_DESTINATION_STATUSES)[number];

const MOBILE_NUMBER = /^254[17]\d{8}$/;
const BANK_ACCOUNT_NUMBER = /^\d{6,20}$/;
const BANK_CODE = /^\d{2,6}$/;
const ACCOUNT_NAME_CHARS_MAX = 100;

export interface PayoutDestinationDraft {
  rail: string;
  accountName: string;
  accountNumber: string;
  bankCode: string | null;
}

/** The fields that fail their rail's rules, in request order. */
export function payoutDestinationProblems(draft: PayoutDestinationDraft): string[] {
  const bad: string[] = [];
  const rail = draft.rail as PayoutRail;
  if (!PAYOUT_RAILS.includes(rail)) bad.push('rail');
  const name = draft.accountName.trim();
  if (name.length === 0 || name.length > ACCOUNT_NAME_CHARS_MAX || /[\u0000-\u001f]/.test(name))
    bad.push('accountName');
  const mobile = rail === 'mobile_money';
  if (!(mobile ? MOBILE_NUMBER : BANK_ACCOUNT_NUMBER).test(draft.accountNumber)) bad.push('accountNumber');
  if (mobile ? draft.bankCode !== null : !(draft.bankCode !== null && BANK_CODE.test(draft.bankCode)))
    bad.push('bankCode');
  return bad;
}

/** The account number as partners see it: only its last four digits. */
export function maskAccountNumber(accountNumber: string): string {
  return `****${accountNumber.slice(-4)}`;
}
