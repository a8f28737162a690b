/**
 * Sandbox bank (contract decisions section 6): an account number ending
 * `0000` is refused with PROVIDER_REJECTED; anything else is accepted and
 * settles `settleDelayMs` (already scaled by SANDBOX_TIME_SCALE) after it was
 * submitted. Stateless: the submission time is ours, stored with the
 * instruction, so the outcome survives restarts.
 */
import type { BankAdapter, BankSubmitAnswer, BankTransferRequest, BankTransferStatus } from './bank';

export const SANDBOX_REJECTED_ACCOUNT_SUFFIX = '0000';

export class SandboxBank implements BankAdapter {
  constructor(private readonly settleDelayMs: number, private readonly now: () => Date = () => new Date()) {}

  async submit(request: BankTransferRequest): Promise<BankSubmitAnswer> {
    if (request.accountNumber.endsWith(SANDBOX_REJECTED_ACCOUNT_SUFFIX)) return { outcome: 'rejected', failureCode: 'PROVIDER_REJECTED' };
    return { outcome: 'accepted', providerReference: `SBX-${request.reference}` };
  }

  async status(request: { providerReference: string; submittedAt: Date }): Promise<BankTransferStatus> {
    const dueMs = request.submittedAt.getTime() + this.settleDelayMs;
    return this.now().getTime() >= dueMs ? { status: 'settled' } : { status: 'pending' };
  }
}

/**
 * Production until the real bank is integrated: every payout is refused with
 * BANK_NOT_CONFIGURED, so nothing is reported paid that was not.
 */
export class UnconfiguredBank implements BankAdapter {
  async submit(): Promise<BankSubmitAnswer> {
    return { outcome: 'rejected', failureCode: 'BANK_NOT_CONFIGURED' };
  }

  async status(): Promise<BankTransferStatus> {
    return { status: 'failed', failureCode: 'BANK_NOT_CONFIGURED' };
  }
}
