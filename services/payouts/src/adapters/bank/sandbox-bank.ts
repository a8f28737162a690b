/**
 * Sandbox bank (contract decisions section 6): an account number ending
 * `0000` is refused with PROVIDER_REJECTED; anything else is accepted and
 * settles `settleDelayMs` (already scaled by SANDBOX_TIME_SCALE) after it was
 * submitted. Stateless: the submission time is ours, stored with the
 * instruction, so the outcome survives restarts.
 */
import type {
  BankAdapter, BankSubmitAnswer, BankTransferRequest, BankTransferStatus, MobileMoneyPushAnswer, MobileMoneyPushBank, MobileMoneyPushRequest,
} from './bank';

export const SANDBOX_REJECTED_ACCOUNT_SUFFIX = '0000';
/** Contract decisions section 6: a phone number ending 000 is declined (MOBILE_MONEY_PUSH_REJECTED). */
export const SANDBOX_PUSH_REJECTED_PHONE_SUFFIX = '000';
/** Ours: a phone number ending 999 gets no answer from the bank (MOBILE_MONEY_PUSH_UNAVAILABLE). */
export const SANDBOX_PUSH_UNAVAILABLE_PHONE_SUFFIX = '999';

export class SandboxBank implements BankAdapter, MobileMoneyPushBank {
  constructor(private readonly settleDelayMs: number, private readonly now: () => Date = () => new Date()) {}

  async submit(request: BankTransferRequest): Promise<BankSubmitAnswer> {
    if (request.accountNumber.endsWith(SANDBOX_REJECTED_ACCOUNT_SUFFIX)) return { outcome: 'rejected', failureCode: 'PROVIDER_REJECTED' };
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
