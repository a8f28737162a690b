// Proves how a confirmation spends the partner's wrong-code budget, with fakes
// at the persistence edge: a wrong code is counted on the confirmation and then
// on the partner's budget (partner and confirmation named); a right code
// consumes nothing; a locked partner is refused PARTNER_CONFIRMATIONS_LOCKED
// even with the right code, before anything is counted or confirmed; the wrong
// code that spends the budget still answers CONFIRMATION_CODE_INCORRECT and
// raises exactly one structured alert naming the partner, never the code.
import type { AppError } from '@platform/errors';
import { recordingLogger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { Confirmation, hashCode } from '../../domain/confirmation-code';
import type { WrongCode } from '../../persistence/wrong-code-budgets.repository';
import { ConfirmUseCase } from './confirm.usecase';

const KEY = 'cd'.repeat(32);
const partnerId = '11111111-1111-4111-8111-111111111111';
const confirmationId = '22222222-2222-4222-8222-222222222222';
const RIGHT = '482913';
const WRONG = '000000';
const budget = { wrongCodesMax: 20, windowMs: 86_400_000 };

function liveConfirmation(): Confirmation {
  const now = new Date();
  return {
    confirmationId,
    partnerId,
    subjectType: 'transfer',
    subjectId: '33333333-3333-4333-8333-333333333333',
    codeHash: hashCode(KEY, confirmationId, 0, RIGHT),
    deliveredTo: 'j***@example.com',
    status: 'live',
    attempts: 0,
    resends: 0,
    codeIssue: 0,
    lastIssue: 0,
    expiresAt: new Date(now.getTime() + 60_000),
    resendAvailableAt: now,
    createdAt: now,
    verifiedAt: null,
  };
}

function harness(options: { partnerLocked?: boolean; spendsBudget?: boolean } = {}) {
  const { logger, lines } = recordingLogger();
  const counted: WrongCode[] = [];
  const events: string[] = [];
  const manager = {};
  const dataSource = {
    manager,
    transaction: async (work: (m: unknown) => Promise<unknown>) => work(manager),
  } as unknown as DataSource;
  const useCase = new ConfirmUseCase({
    dataSource,
    confirmations: {
      lock: async () => liveConfirmation(),
      countWrongAttempt: async () => {
        events.push('confirmation attempt counted');
        return 'live';
      },
      markUsed: async () => {
        events.push('confirmation used');
        return true;
      },
    } as never,
    transfers: { lockByConfirmation: async () => [] } as never,
    sends: { markConfirmed: async () => undefined } as never,
    instructions: {} as never,
    budgets: {
      isLocked: async () => options.partnerLocked ?? false,
      countWrongCode: async (_manager, wrongCode) => {
        counted.push(wrongCode);
        return {
          wrongCodesInWindow: options.spendsBudget ? budget.wrongCodesMax : 1,
          lockedNow: options.spendsBudget ?? false,
        };
      },
    },
    budget,
    codeHashKeyHex: KEY,
    logger,
    onConfirmed: () => events.push('runner kicked'),
  });
  const confirm = (code: string) => useCase.execute({ partnerId, confirmationId, code });
  return { confirm, counted, events, lines };
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: AppError) => error.code,
  );

describe('ConfirmUseCase and the wrong-code budget', () => {
  it("counts a wrong code on the confirmation, then on the partner's budget", async () => {
    const h = harness();
    expect(await refusalOf(h.confirm(WRONG))).toBe('CONFIRMATION_CODE_INCORRECT');
    expect(h.events).toEqual(['confirmation attempt counted']);
    expect(h.counted).toEqual([{ partnerId, confirmationId, countedAt: expect.any(Date) }]);
    expect(h.lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('consumes no budget with the right code', async () => {
    const h = harness();
    await expect(h.confirm(RIGHT)).resolves.toMatchObject({ confirmationId, status: 'confirmed' });
    expect(h.counted).toEqual([]);
    expect(h.events).toEqual(['confirmation used', 'runner kicked']);
  });

  it('refuses a locked partner even with the right code, counting and confirming nothing', async () => {
    for (const code of [RIGHT, WRONG]) {
      const h = harness({ partnerLocked: true });
      expect(await refusalOf(h.confirm(code))).toBe('PARTNER_CONFIRMATIONS_LOCKED');
      expect(h.counted).toEqual([]);
      expect(h.events).toEqual([]);
    }
  });

  it('answers the spending wrong code as incorrect and alerts once, naming the partner and never the code', async () => {
    const h = harness({ spendsBudget: true });
    expect(await refusalOf(h.confirm(WRONG))).toBe('CONFIRMATION_CODE_INCORRECT');
    const alerts = h.lines.filter((line) => line.fields.alert !== undefined);
    expect(alerts).toEqual([
      {
        level: 'error',
        message: expect.stringContaining('budget spent'),
        fields: {
          alert: 'confirmation_code_budget_spent',
          partnerId,
          wrongCodes: 20,
          wrongCodesMax: 20,
          windowMs: 86_400_000,
        },
      },
    ]);
    expect(JSON.stringify(h.lines)).not.toContain(WRONG);
  });
});
