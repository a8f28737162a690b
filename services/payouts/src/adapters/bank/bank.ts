/**
 * The bank that sends KES out to a payout destination. Submitting is
 * idempotent on `reference` (our instruction id), so a submit repeated after a
 * crash does not pay twice; the outcome is then read with `status`.
 * Transfers (issue 6) reuse this adapter.
 */
export interface BankTransferRequest {
  reference: string;
  rail: string;
  accountNumber: string;
  accountName: string;
  bankCode: string | null;
  amountKes: string;
}

export type BankSubmitAnswer = { outcome: 'accepted'; providerReference: string } | { outcome: 'rejected'; failureCode: string };

export type BankTransferStatus = { status: 'pending' } | { status: 'settled' } | { status: 'failed'; failureCode: string };

/** The beneficiary name check, where the rail supports it (verified: the name the bank holds). */
export type NameVerification = { outcome: 'verified'; accountName: string } | { outcome: 'mismatch' } | { outcome: 'unavailable' };

export interface BankAdapter {
  verifyName(request: { rail: string; accountNumber: string; accountName: string; bankCode: string | null }): Promise<NameVerification>;
  submit(request: BankTransferRequest): Promise<BankSubmitAnswer>;
  status(request: { providerReference: string; submittedAt: Date }): Promise<BankTransferStatus>;
}

/**
 * The mobile-money funding prompt (STK push): the bank asks the payer's
 * handset to approve a payment into our paybill. `reference` is our push id,
 * which the bank echoes in its answer callback. `unavailable` means the bank
 * did not answer in time: the prompt may or may not have reached the payer.
 */
export interface MobileMoneyPushRequest {
  reference: string;
  msisdn: string;
  amountKes: string;
}

export type MobileMoneyPushAnswer = { outcome: 'sent' } | { outcome: 'rejected' } | { outcome: 'unavailable' };

export interface MobileMoneyPushBank {
  pushPrompt(request: MobileMoneyPushRequest): Promise<MobileMoneyPushAnswer>;
}
