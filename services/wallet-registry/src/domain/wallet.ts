/**
 * Withdrawal addresses (TRON wallets a partner may send USDT to). A wallet needs two approvals
 * before it may receive value: a code confirmed by a partner administrator,
 * then the service's review. Revocation is immediate and irreversible.
 *
 *   pending_partner_approval --correct code--> pending_service_approval
 *   pending_service_approval --review approve--> active
 *   pending_service_approval --review reject--> rejected
 *   any --DELETE--> revoked (never shown to partners again)
 */
import { isValidTronAddress } from '@platform/chain';
import { validationFailed } from '@platform/errors';
// The partner contract states the statuses partners see; the registry adds `revoked`, which they never see.
import {
  WALLET_STATUSES as PARTNER_WALLET_STATUSES,
  type WalletScreeningStatus,
} from '@platform/openapi/dist/contract/statuses';

export const WALLET_STATUSES = [...PARTNER_WALLET_STATUSES, 'revoked'] as const;
export type WalletStatus = (typeof WALLET_STATUSES)[number];
/** Screening moves with the service's review: pending until reviewed, then cleared or rejected. */
export type ScreeningStatus = WalletScreeningStatus;

export const SUPPORTED_CHAIN = 'tron';
export const SUPPORTED_ASSET = 'USDT';
export const LABEL_LENGTH_MAX = 100;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export interface Wallet {
  walletId: string;
  partnerId: string;
  chain: string;
  asset: string;
  address: string;
  label: string;
  status: WalletStatus;
  screeningStatus: ScreeningStatus;
  createdAt: Date;
}

export interface WalletInput {
  chain: string;
  asset: string;
  address: string;
  label: string;
}

/** Checks a registration; throws VALIDATION_FAILED naming chain, asset, address, label as they fail. */
export function parseWalletInput(input: WalletInput): WalletInput {
  const bad: string[] = [];
  if (input.chain !== SUPPORTED_CHAIN) bad.push('chain');
  if (input.asset !== SUPPORTED_ASSET) bad.push('asset');
  if (!isValidTronAddress(input.address)) bad.push('address');
  if (input.label.length > LABEL_LENGTH_MAX || CONTROL.test(input.label)) bad.push('label');
  if (bad.length > 0) throw validationFailed(bad);
  return input;
}

/** Only an active wallet may receive value. */
export function isActive(status: WalletStatus): boolean {
  return status === 'active';
}

/** The human `nextStep` text for a wallet in `status`. */
export function nextStepFor(status: WalletStatus): string {
  switch (status) {
    case 'pending_partner_approval':
      return 'An administrator must confirm the 6-digit code e-mailed to them: POST /v1/wallets/{walletId}/confirm with {"otp": "<code>"}.';
    case 'pending_service_approval':
      return 'Confirmed by your administrator. The service is reviewing the address; it can receive value once its status is active.';
    case 'active':
      return 'Approved. The address can receive value.';
    case 'rejected':
      return 'The service declined this address. It cannot receive value; contact the service for details.';
    case 'revoked':
      return 'Revoked. The address can no longer receive value.';
  }
}

export type ReviewDecision = 'approve' | 'reject';

/** The state a review decision leads to. */
export function reviewOutcome(decision: ReviewDecision): { status: WalletStatus; screeningStatus: ScreeningStatus } {
  return decision === 'approve'
    ? { status: 'active', screeningStatus: 'cleared' }
    : { status: 'rejected', screeningStatus: 'rejected' };
}
