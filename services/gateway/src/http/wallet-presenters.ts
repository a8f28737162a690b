/**
 * Wallet-registry and notifier answers → the partner JSON (withdrawal
 * addresses, administrators, sandbox outbox entries), each value asserted on the way out.
 */
import type { notifier, walletRegistry } from '@platform/proto';
import { MESSAGE_KINDS, WALLET_SCREENING_STATUSES, WALLET_STATUSES } from '@platform/openapi/dist/contract/statuses';
import { WireFormatError, wireNonEmptyString, wireTimestamp, wireUuid } from '../domain/wire-format';

const MASKED_EMAIL = /^[^@*]\*\*\*@[^@]+$/;

function wireOneOf(value: unknown, allowed: readonly string[], field: string): string {
  if (typeof value !== 'string' || !allowed.includes(value))
    throw new WireFormatError(field, `one of ${allowed.join(', ')}`);
  return value;
}

function wireMaskedEmail(value: unknown, field: string): string {
  if (typeof value !== 'string' || !MASKED_EMAIL.test(value)) throw new WireFormatError(field, 'a masked e-mail');
  return value;
}

export function presentAdmin(admin: walletRegistry.Administrator | undefined) {
  if (!admin) throw new WireFormatError('admin', 'present');
  return {
    adminId: wireUuid(admin.adminId, 'adminId'),
    email: wireNonEmptyString(admin.email, 'email'),
    name: wireNonEmptyString(admin.name, 'name'),
    status: wireOneOf(admin.status, ['active'], 'status'),
  };
}

export function presentWallet(wallet: walletRegistry.Wallet | undefined) {
  if (!wallet) throw new WireFormatError('wallet', 'present');
  return {
    walletId: wireUuid(wallet.walletId, 'walletId'),
    chain: wireNonEmptyString(wallet.chain, 'chain'),
    asset: wireNonEmptyString(wallet.asset, 'asset'),
    address: wireNonEmptyString(wallet.address, 'address'),
    label: wallet.label,
    status: wireOneOf(wallet.status, WALLET_STATUSES, 'status'),
    screeningStatus: wireOneOf(wallet.screeningStatus, WALLET_SCREENING_STATUSES, 'screeningStatus'),
    createdAt: wireTimestamp(wallet.createdAt, 'createdAt'),
    nextStep: wireNonEmptyString(wallet.nextStep, 'nextStep'),
  };
}

/** The register answer: the wallet plus `approvalSentTo` while a code is outstanding. */
export function presentRegisteredWallet(response: walletRegistry.RegisterWalletResponse) {
  const wallet = presentWallet(response.wallet);
  if (response.approvalSentTo === undefined) return wallet;
  return { ...wallet, approvalSentTo: wireMaskedEmail(response.approvalSentTo, 'approvalSentTo') };
}

export function presentOutboxEntry(entry: notifier.OutboxEntry, index: number) {
  return {
    id: wireUuid(entry.id, `[${index}].id`),
    kind: wireOneOf(entry.kind, MESSAGE_KINDS, `[${index}].kind`),
    to: wireMaskedEmail(entry.to, `[${index}].to`),
    subject: wireNonEmptyString(entry.subject, `[${index}].subject`),
    code: entry.code ?? null,
    subjectType: wireNonEmptyString(entry.subjectType, `[${index}].subjectType`),
    subjectId: wireUuid(entry.subjectId, `[${index}].subjectId`),
    createdAt: wireTimestamp(entry.createdAt, `[${index}].createdAt`),
  };
}
