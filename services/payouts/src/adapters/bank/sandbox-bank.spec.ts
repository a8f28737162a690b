// Proves the sandbox bank's magic values (account suffix 0000 refused, MISMATCH
// refused by the name check of a submission that asks for it and left
// unverified by the lookup, NOANSWER leaving the first submit unanswered but the
// retry with the same reference answered) and its settlement delay.
import { SandboxBank } from './sandbox-bank';

const transfer = {
  reference: 'r1',
  rail: 'mobile_money',
  accountName: 'A',
  bankCode: null,
  amountKes: '10.00',
  checkAccountName: true,
};

describe('SandboxBank', () => {
  it('refuses an account number ending 0000 and accepts others', async () => {
    const bank = new SandboxBank(1_000);
    await expect(bank.submit({ ...transfer, accountNumber: '254712340000' })).resolves.toEqual({
      outcome: 'rejected',
      failureCode: 'PROVIDER_REJECTED',
    });
    await expect(bank.submit({ ...transfer, accountNumber: '254712345678' })).resolves.toEqual({
      outcome: 'accepted',
      providerReference: 'SBX-r1',
    });
  });

  it('settles once the delay has passed since submission', async () => {
    const submittedAt = new Date('2026-01-01T00:00:00.000Z');
    const at = (ms: number) => new SandboxBank(1_000, () => new Date(submittedAt.getTime() + ms));
    await expect(at(999).status({ providerReference: 'x', submittedAt })).resolves.toEqual({ status: 'pending' });
    await expect(at(1_000).status({ providerReference: 'x', submittedAt })).resolves.toEqual({ status: 'settled' });
  });

  it('refuses a MISMATCH name at submission when asked to check it, never at the lookup', async () => {
    const bank = new SandboxBank(1_000);
    await expect(bank.verifyName({ accountName: 'A MISMATCH' })).resolves.toEqual({ outcome: 'unavailable' });
    await expect(bank.verifyName({ accountName: 'Jane' })).resolves.toEqual({
      outcome: 'verified',
      accountName: 'Jane',
    });
    const mismatched = { ...transfer, accountNumber: '254712345678', accountName: 'A MISMATCH' };
    await expect(bank.submit(mismatched)).resolves.toEqual({
      outcome: 'rejected',
      failureCode: 'TRANSFER_NAME_MISMATCH',
    });
    // A submission repeated after a crash is refused the same way.
    await expect(bank.submit(mismatched)).resolves.toEqual({
      outcome: 'rejected',
      failureCode: 'TRANSFER_NAME_MISMATCH',
    });
    await expect(bank.submit({ ...mismatched, checkAccountName: false })).resolves.toEqual({
      outcome: 'accepted',
      providerReference: 'SBX-r1',
    });
  });

  it('leaves the first NOANSWER submit unanswered', async () => {
    const bank = new SandboxBank(1_000);
    const silent = { ...transfer, accountNumber: '254712345678', accountName: 'NOANSWER' };
    await expect(bank.submit(silent)).rejects.toThrow('did not answer');
    await expect(bank.submit(silent)).resolves.toEqual({ outcome: 'accepted', providerReference: 'SBX-r1' });
  });
});

describe('SandboxBank mobile-money prompt', () => {
  const push = (msisdn: string) => new SandboxBank(1_000).pushPrompt({ reference: 'p1', msisdn, amountKes: '10.00' });

  it('declines a phone ending 000, gets no answer for one ending 999, sends the rest', async () => {
    await expect(push('254712345000')).resolves.toEqual({ outcome: 'rejected' });
    await expect(push('254712345999')).resolves.toEqual({ outcome: 'unavailable' });
    await expect(push('254712345678')).resolves.toEqual({ outcome: 'sent' });
  });
});
