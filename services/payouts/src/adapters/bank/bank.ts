/**
 * The bank that sends KES out to a payout destination. Submitting is
 * idempotent on `reference` (our instruction id), so a submit repeated after a
 * crash does not pay twice; the outcome is then read with `status`.
 * Transfers reuse this adapter.
 */
export interface BankTransferRequest {
  reference: string;
  rail: string;
  accountNumber: string;
  accountName: string;
  bankCode: string | null;
  amountKes: string;
  /**
   * The bank checks `accountName` against the account before it pays, and refuses a
   * mismatch with TRANSFER_NAME_MISMATCH. Transfers ask for it (the partner typed the
   * name); order proceeds, paid to a destination the operators registered, do not.
   */
  checkAccountName: boolean;
}

export type BankSubmitAnswer =
  { outcome: 'accepted'; providerReference: string } | { outcome: 'rejected'; failureCode: string };

export type BankTransferStatus =
  { status: 'pending' } | { status: 'settled' } | { status: 'failed'; failureCode: string };

/**
 * The beneficiary name lookup at create, where the rail supports it: verified, with the
 * name the bank holds, or unavailable. It never refuses a transfer: the bank's own name
 * check runs when the transfer is handed to it (BankTransferRequest.checkAccountName).
 */
export type NameVerification = { outcome: 'verified'; accountName: string } | { outcome: 'unavailable' };

export interface BankAdapter {
  verifyName(request: {
    rail: string;
    accountNumber: string;
    accountName: string;
    bankCode: string | null;
  }): Promise<NameVerification>;
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
