/**
 * A KES transfer request, validated and
 * normalised. Rails: `mobile_money` (a Kenyan MSISDN, normalised to
 * 2547XXXXXXXX / 2541XXXXXXXX, no bankCode) and the bank rails `pesalink`,
 * `rtgs`, `eft` (bankCode required). The request hash covers every field that
 * shapes the transfer, so an idempotency key reused with another body is
 * detected whatever the field order or number spelling.
 */
import { sha256Hex } from '@platform/crypto';
import { validationFailed } from '@platform/errors';
import { Big, formatAmount, parsePositiveAmount } from '@platform/money';
import { normaliseKenyanMsisdn } from './msisdn';

export const TRANSFER_RAILS = ['mobile_money', 'pesalink', 'rtgs', 'eft'] as const;
export type TransferRail = (typeof TRANSFER_RAILS)[number];
export const BANK_RAILS: readonly TransferRail[] = ['pesalink', 'rtgs', 'eft'];

export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const PARTNER_REFERENCE_LENGTH_MAX = 128;
export const ACCOUNT_NAME_LENGTH_MAX = 100;
const PRINTABLE = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]+$/;
const BANK_ACCOUNT_NUMBER = /^[0-9]{6,20}$/;
const BANK_CODE = /^[0-9]{2,11}$/;

export interface TransferRequestInput {
  rail: string;
  accountNumber: string;
  accountName: string;
  bankCode?: string;
  amountCurrency: string;
  amountValue: string;
  idempotencyKey: string;
  partnerReference?: string;
}

export interface TransferRequest {
  rail: TransferRail;
  accountNumber: string;
  accountName: string;
  bankCode: string | null;
  amountKes: Big;
  idempotencyKey: string;
  partnerReference: string;
}

function isRail(value: string): value is TransferRail {
  return (TRANSFER_RAILS as readonly string[]).includes(value);
}

function destinationFields(
  input: TransferRequestInput,
  bad: string[],
): { accountNumber: string; bankCode: string | null } {
  if (!isRail(input.rail)) {
    bad.push('rail');
    return { accountNumber: input.accountNumber, bankCode: null };
  }
  if (input.rail === 'mobile_money') {
    const msisdn = normaliseKenyanMsisdn(input.accountNumber);
    if (!msisdn) bad.push('destination.accountNumber');
    if (input.bankCode !== undefined) bad.push('destination.bankCode');
    return { accountNumber: msisdn ?? input.accountNumber, bankCode: null };
  }
  if (!BANK_ACCOUNT_NUMBER.test(input.accountNumber)) bad.push('destination.accountNumber');
  if (input.bankCode === undefined || !BANK_CODE.test(input.bankCode)) bad.push('destination.bankCode');
  return { accountNumber: input.accountNumber, bankCode: input.bankCode ?? null };
}

/** Parses one transfer request; VALIDATION_FAILED naming every offending field. */
export function parseTransferRequest(input: TransferRequestInput, fieldPrefix = ''): TransferRequest {
  const bad: string[] = [];
  const destination = destinationFields(input, bad);
  const accountName = input.accountName.trim();
  if (accountName.length === 0 || accountName.length > ACCOUNT_NAME_LENGTH_MAX || !PRINTABLE.test(accountName))
    bad.push('destination.accountName');
  if (input.amountCurrency !== 'KES') bad.push('amount.currency');
  const amountKes = parsePositiveAmount(input.amountValue, 'KES');
  if (!amountKes) bad.push('amount.value');
  if (!IDEMPOTENCY_KEY_PATTERN.test(input.idempotencyKey)) bad.push('idempotencyKey');
  const reference = input.partnerReference ?? input.idempotencyKey;
  if (reference.length === 0 || reference.length > PARTNER_REFERENCE_LENGTH_MAX || !PRINTABLE.test(reference))
    bad.push('partnerReference');
  if (bad.length > 0 || !amountKes) throw validationFailed(bad.map((field) => `${fieldPrefix}${field}`));
  return {
    rail: input.rail as TransferRail,
    accountNumber: destination.accountNumber,
    accountName,
    bankCode: destination.bankCode,
    amountKes,
    idempotencyKey: input.idempotencyKey,
    partnerReference: reference,
  };
}

/** The fingerprint an idempotency key is bound to. */
export function transferRequestHash(request: TransferRequest): string {
  return sha256Hex(
    JSON.stringify([
      request.rail,
      request.accountNumber,
      request.accountName,
      request.bankCode,
      formatAmount(request.amountKes, 'KES'),
      request.partnerReference,
    ]),
  );
}
