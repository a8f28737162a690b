// Proves the create use case with fakes at its edges: the push is stored before
// the bank is asked; the bank's rejection, its silence and a failed call each
// leave the stored push marked and answer their code; a KES account that is not
// active refuses before anything is stored; bad phone and amount are named together.
import { AppError } from '@platform/errors';
import { createLogger } from '@platform/logger';
import type { MobileMoneyPushAnswer, MobileMoneyPushBank } from '../../adapters/bank/bank';
import type { MobileMoneyPushesRepository, PushRecord } from '../../persistence/mobile-money-pushes.repository';
import { CreateMobileMoneyPushUseCase } from './create-mobile-money-push.usecase';

const logger = createLogger('funding-spec', 'error');
const partnerId = '11111111-1111-4111-8111-111111111111';

function harness(answer: () => Promise<MobileMoneyPushAnswer>, kesAccountStatus = 'active') {
  const calls: string[] = [];
  const marked: Array<[string, string]> = [];
  const pushes = {
    insert: async (push: PushRecord) => {
      calls.push('insert');
      return {
        ...push,
        status: 'pending',
        createdAt: new Date(),
        answeredAt: null,
        railReference: null,
        creditTransactionId: null,
      };
    },
    markNotSent: async (pushId: string, status: string) => {
      marked.push([pushId, status]);
    },
  } as unknown as MobileMoneyPushesRepository;
  const bank: MobileMoneyPushBank = {
    pushPrompt: async () => {
      calls.push('push');
      return answer();
    },
  };
  const ledger = { getPartnerAccounts: async () => ({ kesAccountStatus, kesAccountReference: 'REF123' }) } as never;
  const useCase = new CreateMobileMoneyPushUseCase({ pushes, ledger, bank, lifetimeMs: 60_000, logger });
  return { useCase, calls, marked };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: AppError) => error.code,
  );

describe('CreateMobileMoneyPushUseCase', () => {
  it('stores the push, then sends it; normalises the phone and the amount', async () => {
    const h = harness(async () => ({ outcome: 'sent' }));
    const push = await h.useCase.execute({ partnerId, phone: '+254712345678', amountKes: '10' });
    expect(h.calls).toEqual(['insert', 'push']);
    expect(push).toMatchObject({
      partnerId,
      msisdn: '254712345678',
      amountKes: '10.00',
      kesAccountReference: 'REF123',
      status: 'pending',
    });
  });

  it.each([
    [async (): Promise<MobileMoneyPushAnswer> => ({ outcome: 'rejected' }), 'rejected', 'MOBILE_MONEY_PUSH_REJECTED'],
    [
      async (): Promise<MobileMoneyPushAnswer> => ({ outcome: 'unavailable' }),
      'unavailable',
      'MOBILE_MONEY_PUSH_UNAVAILABLE',
    ],
    [
      async (): Promise<MobileMoneyPushAnswer> => {
        throw new Error('socket hang up');
      },
      'unavailable',
      'MOBILE_MONEY_PUSH_UNAVAILABLE',
    ],
  ])('marks the push and refuses when the bank answers %#', async (answer, status, code) => {
    const h = harness(answer);
    expect(await codeOf(h.useCase.execute({ partnerId, phone: '0712345678', amountKes: '10.00' }))).toBe(code);
    expect(h.marked).toEqual([[expect.any(String), status]]);
  });

  it.each([
    ['activating', 'PARTNER_VA_ACTIVATING'],
    ['suspended', 'PARTNER_VA_SUSPENDED'],
    ['not_allocated', 'PARTNER_VA_NOT_ALLOCATED'],
    ['', 'PARTNER_VA_NOT_ALLOCATED'],
  ])('refuses a KES account %j with %s before storing anything', async (status, code) => {
    const h = harness(async () => ({ outcome: 'sent' }), status);
    expect(await codeOf(h.useCase.execute({ partnerId, phone: '0712345678', amountKes: '10.00' }))).toBe(code);
    expect(h.calls).toEqual([]);
  });

  it('names a bad phone and a bad amount together', async () => {
    const h = harness(async () => ({ outcome: 'sent' }));
    const refusal = await h.useCase
      .execute({ partnerId, phone: '0812345678', amountKes: '0.50' })
      .catch((error: AppError) => error);
    expect((refusal as AppError).message).toBe('Validation failed on: phone, amount');
    expect(h.calls).toEqual([]);
  });
});
