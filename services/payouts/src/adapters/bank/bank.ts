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
