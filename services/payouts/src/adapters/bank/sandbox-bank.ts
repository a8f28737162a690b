/**
 * Sandbox bank: an account number ending
 * `0000` is refused with PROVIDER_REJECTED; anything else is accepted and
 * settles `settleDelayMs` (already scaled by SANDBOX_TIME_SCALE) after it was
 * submitted. Stateless: the submission time is ours, stored with the
 * instruction, so the outcome survives restarts.
 * Name check: a submission that asks for it (a transfer) with an account name
 * containing `MISMATCH` is refused with TRANSFER_NAME_MISMATCH, after
 * confirmation like any bank refusal; the lookup at create cannot vouch for
 * such a name (unavailable) and refuses nothing. An account name containing
 * `NOANSWER` makes the first submit of each reference (per process) take the
 * payment but not answer, as a bank that times out does; the retry with the
 * same reference is answered, and never pays twice.
 */
import type {
  BankAdapter,
  BankSubmitAnswer,
  BankTransferRequest,
  BankTransferStatus,
  MobileMoneyPushAnswer,
  MobileMoneyPushBank,
  MobileMoneyPushRequest,
  NameVerification,
} from './bank';

export const SANDBOX_REJECTED_ACCOUNT_SUFFIX = '0000';
export const SANDBOX_NAME_MISMATCH_MARKER = 'MISMATCH';
export const SANDBOX_NO_ANSWER_MARKER = 'NOANSWER';
/** Bounds the memory of unanswered references (sandbox only). */
const UNANSWERED_REFERENCES_MAX = 10_000;
/** Documented to partners: a phone number ending 000 is declined (MOBILE_MONEY_PUSH_REJECTED). */
export const SANDBOX_PUSH_REJECTED_PHONE_SUFFIX = '000';
/** Ours: a phone number ending 999 gets no answer from the bank (MOBILE_MONEY_PUSH_UNAVAILABLE). */
export const SANDBOX_PUSH_UNAVAILABLE_PHONE_SUFFIX = '999';

export class SandboxBank implements BankAdapter, MobileMoneyPushBank {
  private readonly unanswered = new Set<string>();

  constructor(
    private readonly settleDelayMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async verifyName(request: { accountName: string }): Promise<NameVerification> {
    if (request.accountName.includes(SANDBOX_NAME_MISMATCH_MARKER)) return { outcome: 'unavailable' };
    return { outcome: 'verified', accountName: request.accountName };
  }

  async submit(request: BankTransferRequest): Promise<BankSubmitAnswer> {
    if (request.checkAccountName && request.accountName.includes(SANDBOX_NAME_MISMATCH_MARKER))
      return { outcome: 'rejected', failureCode: 'TRANSFER_NAME_MISMATCH' };
    if (request.accountNumber.endsWith(SANDBOX_REJECTED_ACCOUNT_SUFFIX))
      return { outcome: 'rejected', failureCode: 'PROVIDER_REJECTED' };
    if (request.accountName.includes(SANDBOX_NO_ANSWER_MARKER) && !this.unanswered.has(request.reference)) {
      if (this.unanswered.size >= UNANSWERED_REFERENCES_MAX) this.unanswered.clear();
      this.unanswered.add(request.reference);
      throw new Error('sandbox bank did not answer the submission');
    }
    return { outcome: 'accepted', providerReference: `SBX-${request.reference}` };
  }

  async status(request: { providerReference: string; submittedAt: Date }): Promise<BankTransferStatus> {
    const dueMs = request.submittedAt.getTime() + this.settleDelayMs;
    return this.now().getTime() >= dueMs ? { status: 'settled' } : { status: 'pending' };
  }

  /** The payer answers later, through the sandbox approve and decline helpers. */
  async pushPrompt(request: MobileMoneyPushRequest): Promise<MobileMoneyPushAnswer> {
    if (request.msisdn.endsWith(SANDBOX_PUSH_REJECTED_PHONE_SUFFIX)) return { outcome: 'rejected' };
    if (request.msisdn.endsWith(SANDBOX_PUSH_UNAVAILABLE_PHONE_SUFFIX)) return { outcome: 'unavailable' };
    return { outcome: 'sent' };
  }
}

/**
 * Production until the real bank is integrated: every payout is refused with
 * BANK_NOT_CONFIGURED, so nothing is reported paid that was not.
 */
export class UnconfiguredBank implements BankAdapter, MobileMoneyPushBank {
  async verifyName(): Promise<NameVerification> {
    return { outcome: 'unavailable' };
  }

  async submit(): Promise<BankSubmitAnswer> {
    return { outcome: 'rejected', failureCode: 'BANK_NOT_CONFIGURED' };
  }

  async status(): Promise<BankTransferStatus> {
    return { status: 'failed', failureCode: 'BANK_NOT_CONFIGURED' };
  }

  /** No bank to push through: answered as unavailable, and no prompt goes out. */
  async pushPrompt(): Promise<MobileMoneyPushAnswer> {
    return { outcome: 'unavailable' };
  }
}
