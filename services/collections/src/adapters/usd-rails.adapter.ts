/**
 * The USD rails (ACH push, FedNow, wire) behind an interface. Each collection
 * gets a reference plus a dedicated USD deposit account number, so a deposit is attributed by the account
 * it lands in; the reference in the payment message is the partner's
 * reconciliation key and a second check.
 */
import { randomInt } from 'node:crypto';
import { AppError } from '@platform/errors';
import { isValidAbaRoutingNumber } from '../domain/routing-number';

export const USD_RAILS = ['ach_push', 'fednow', 'wire'] as const;

export interface DepositInstructionsView {
  beneficiaryName: string;
  bankName: string;
  routingNumber: string;
  accountNumber: string;
  rails: string[];
  depositMessage: string;
}

export interface UsdRails {
  /** A fresh account number dedicated to one collection. */
  openDepositAccount(): string;
  instructionsFor(reference: string, accountNumber: string): DepositInstructionsView;
  /** Whether the rails bounce this deposit back to the payer before it settles with us. */
  returnsDeposit(deposit: { senderName: string | null }): boolean;
}

const SANDBOX_BENEFICIARY_NAME = 'Partner Platform Collections (Sandbox)';
const SANDBOX_BANK_NAME = 'Sandbox Bank, N.A.';
/** A checksum-valid ABA number (the Federal Reserve Bank of Boston's), never a real account. */
const SANDBOX_ROUTING_NUMBER = '011000015';
const ACCOUNT_NUMBER_PREFIX = '9';
const ACCOUNT_NUMBER_RANDOM_DIGITS = 11;
/** Sandbox steering: a sender name containing this word is returned by the rails (documented in docs/api-behaviour.md). */
export const SANDBOX_RETURN_MARKER = 'RETURN';

/**
 * Production until a USD banking partner is integrated: no collection can be
 * opened (SERVICE_UNAVAILABLE), so sandbox instructions are never handed to a
 * real payer.
 */
export class UnavailableUsdRails implements UsdRails {
  openDepositAccount(): string {
    throw new AppError('SERVICE_UNAVAILABLE');
  }

  instructionsFor(): DepositInstructionsView {
    throw new AppError('SERVICE_UNAVAILABLE');
  }

  returnsDeposit(): boolean {
    throw new AppError('SERVICE_UNAVAILABLE');
  }
}

export class SandboxUsdRails implements UsdRails {
  constructor() {
    if (!isValidAbaRoutingNumber(SANDBOX_ROUTING_NUMBER)) throw new Error('sandbox routing number fails its checksum');
  }

  openDepositAccount(): string {
    let digits = ACCOUNT_NUMBER_PREFIX;
    for (let index = 0; index < ACCOUNT_NUMBER_RANDOM_DIGITS; index += 1) digits += String(randomInt(10));
    return digits;
  }

  instructionsFor(reference: string, accountNumber: string): DepositInstructionsView {
    return {
      beneficiaryName: SANDBOX_BENEFICIARY_NAME,
      bankName: SANDBOX_BANK_NAME,
      routingNumber: SANDBOX_ROUTING_NUMBER,
      accountNumber,
      rails: [...USD_RAILS],
      depositMessage: `Reference ${reference}`,
    };
  }

  returnsDeposit(deposit: { senderName: string | null }): boolean {
    return deposit.senderName !== null && deposit.senderName.toUpperCase().includes(SANDBOX_RETURN_MARKER);
  }
}
