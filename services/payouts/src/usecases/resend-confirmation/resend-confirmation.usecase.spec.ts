// Proves a resend is refused once the partner's wrong-code budget is spent
// (PARTNER_CONFIRMATIONS_LOCKED): no recipient is looked up and no code is
// mailed, since it could not be used; an unknown or foreign confirmation is
// still answered as not found first; an unlocked partner's resend goes out.
import type { AppError } from '@platform/errors';
import { createLogger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import type { Confirmation } from '../../domain/confirmation-code';
import { ResendConfirmationUseCase } from './resend-confirmation.usecase';

const logger = createLogger('resend-spec', 'error');
const partnerId = '11111111-1111-4111-8111-111111111111';
const confirmationId = '22222222-2222-4222-8222-222222222222';

function harness(partnerLocked: boolean) {
  const calls: string[] = [];
  const confirmation = {
    confirmationId,
    partnerId,
    subjectType: 'transfer',
    subjectId: '33333333-3333-4333-8333-333333333333',
    status: 'live',
    attempts: 0,
    resends: 0,
    expiresAt: new Date(Date.now() + 60_000),
    resendAvailableAt: new Date(Date.now() - 1_000),
  } as Confirmation;
  const manager = {};
  const dataSource = {
    manager,
    transaction: async (work: (m: unknown) => Promise<unknown>) => work(manager),
  } as unknown as DataSource;
  const useCase = new ResendConfirmationUseCase({
    dataSource,
    confirmations: {
      find: async (_manager: unknown, id: string) => (id === confirmationId ? confirmation : null),
      lock: async () => confirmation,
      reissue: async () => ({ ...confirmation, resends: 1 }),
    } as never,
    transfers: { rescheduleExpiry: async () => undefined } as never,
    sends: { rescheduleExpiry: async () => undefined } as never,
    budgets: { isLocked: async () => partnerLocked },
    walletRegistry: {
      getCodeRecipient: async () => {
        calls.push('recipient');
        return { email: 'treasurer@example.com' } as never;
      },
    },
    codes: {
      send: async () => {
        calls.push('code sent');
      },
    } as never,
    describe: async () => ({ kind: 'transfer_confirmation', variables: {} }),
    settings: { codeHashKeyHex: 'cd'.repeat(32), codeLifetimeMs: 60_000, timeScale: 1 },
    logger,
  });
  return { useCase, calls };
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: AppError) => error.code,
  );

describe('ResendConfirmationUseCase and the wrong-code budget', () => {
  it('refuses a locked partner before looking anyone up or mailing a code', async () => {
    const h = harness(true);
    expect(await refusalOf(h.useCase.execute({ partnerId, confirmationId }))).toBe('PARTNER_CONFIRMATIONS_LOCKED');
    expect(h.calls).toEqual([]);
  });

  it('still answers an unknown confirmation as not found', async () => {
    const h = harness(true);
    expect(
      await refusalOf(h.useCase.execute({ partnerId, confirmationId: '44444444-4444-4444-8444-444444444444' })),
    ).toBe('CONFIRMATION_NOT_FOUND');
  });

  it('resends for a partner that is not locked', async () => {
    const h = harness(false);
    await expect(h.useCase.execute({ partnerId, confirmationId })).resolves.toMatchObject({
      confirmationId,
      resends: 1,
    });
    expect(h.calls).toEqual(['recipient', 'code sent']);
  });
});
