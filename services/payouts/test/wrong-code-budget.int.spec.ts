// Proves the partner-wide budget of wrong confirmation codes on the real stack.
// An extra payouts instance with a budget of 4 (the stack's own keeps the
// default, 20, so the other specs' wrong codes never lock their partners)
// shares the stack's database, where the lock lives. Four wrong codes sent to
// it at once, across two transfers, all count and spend the budget: the one
// that spends it still answers CONFIRMATION_CODE_INCORRECT, the instance logs
// one alert naming the partner and no code, and from then on the gateway (on
// the stack's instance) answers 403 PARTNER_CONFIRMATIONS_LOCKED to a third
// transfer's right code and to its resend. The gateway's identity cannot lift
// the lock; `ops confirmations unlock` does (repeating it is harmless), and a
// right code confirms again.
import { readFileSync } from 'node:fs';
import { status } from '@grpc/grpc-js';
import { isAppError } from '@platform/errors';
import type { PromiseClient } from '@platform/grpc';
import { rawCallStatus } from '@platform/grpc/dist/testing/raw-call';
import { createLogger } from '@platform/logger';
import { payouts } from '@platform/proto';
import { clientAs, runOps, ServiceInstance, stackIdentity, startServiceInstance, waitFor } from '@platform/testing';
import { ISO_MS, latestCode, payoutsPartner, PayoutsPartner, transferBody } from './support';

const logger = createLogger('payouts-budget-test', 'error');
const BUDGET = 4;
const CONNECT_TIMEOUT_MS = 10_000;
const CALL_DEADLINE_MS = 5_000;

let instance: ServiceInstance;
const instanceAddress = () => `127.0.0.1:${instance.env.GRPC_PORT}`;

function wrongCode(code: string): string {
  return code === '000000' ? '111111' : '000000';
}

interface Created {
  id: string;
  confirmationId: string;
  code: string;
}

async function createTransfer(ctx: PayoutsPartner): Promise<Created> {
  const created = await ctx.http.post('/v1/transfers', transferBody());
  expect(created.status).toBe(202);
  return {
    id: created.body.id,
    confirmationId: created.body.confirmation.id,
    code: await latestCode(ctx.http, created.body.id),
  };
}

/** The alert lines the extra instance logged for `partnerId`, parsed. */
function alertLines(partnerId: string): Array<Record<string, unknown>> {
  return readFileSync(instance.logFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"confirmation_code_budget_spent"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.partnerId === partnerId);
}

/** One UnlockPartnerConfirmations call as `identity` on a fresh channel to the extra instance; resolves to its gRPC status code (0 when it succeeded). */
function statusAs(identity: string, request: payouts.UnlockPartnerConfirmationsRequest): Promise<number> {
  return rawCallStatus(
    {
      address: instanceAddress(),
      credentials: stackIdentity(identity).client('payouts').credentials,
      serverName: 'payouts',
      deadlineMs: CALL_DEADLINE_MS,
    },
    payouts.PayoutsOperatorService.unlockPartnerConfirmations,
    request,
  );
}

describe('the partner-wide budget of wrong confirmation codes', () => {
  let ctx: PayoutsPartner;
  let transfers: PromiseClient<typeof payouts.TransfersService>;

  beforeAll(async () => {
    instance = await startServiceInstance('payouts', { CONFIRMATION_WRONG_CODE_BUDGET: String(BUDGET) });
    transfers = clientAs('gateway', payouts.TransfersService, {
      upstream: 'payouts',
      address: instanceAddress(),
      logger,
    });
    expect(await transfers.serving(CONNECT_TIMEOUT_MS)).toBe(true);
    ctx = await payoutsPartner({ fundKes: '5000.00' });
  });

  afterAll(async () => {
    transfers?.close();
    await ctx?.receiver.close();
    await instance?.stop();
  });

  it('locks every confirmation of the partner once the budget is spent, until an operator unlocks it', async () => {
    const [first, second, third] = await Promise.all([createTransfer(ctx), createTransfer(ctx), createTransfer(ctx)]);
    // Four wrong codes at once, two on each of two transfers: each is counted, none lost.
    const guesses = [first, first, second, second].map((subject) =>
      transfers
        .confirm({
          partnerId: ctx.partner.partnerId,
          confirmationId: subject.confirmationId,
          code: wrongCode(subject.code),
        })
        .then(
          () => 'confirmed',
          (error: unknown) => (isAppError(error) ? error.code : String(error)),
        ),
    );
    expect(await Promise.all(guesses)).toEqual(Array(BUDGET).fill('CONFIRMATION_CODE_INCORRECT'));

    const alerts = await waitFor(
      () => {
        const lines = alertLines(ctx.partner.partnerId);
        return lines.length > 0 ? lines : undefined;
      },
      { what: 'the budget-spent alert' },
    );
    expect(alerts).toEqual([
      expect.objectContaining({
        level: 'error',
        partnerId: ctx.partner.partnerId,
        wrongCodes: BUDGET,
        wrongCodesMax: BUDGET,
      }),
    ]);
    for (const code of [first.code, second.code, wrongCode(first.code)])
      expect(JSON.stringify(alerts)).not.toContain(code);

    // The stack's instance (budget 20) reads the same lock: the right code is refused, and no resend goes out.
    const right = await ctx.http.post(`/v1/confirmations/${third.confirmationId}`, { code: third.code });
    expect({ status: right.status, message: right.body.message }).toEqual({
      status: 403,
      message: 'PARTNER_CONFIRMATIONS_LOCKED',
    });
    const resend = await ctx.http.post(`/v1/confirmations/${third.confirmationId}/resend`);
    expect({ status: resend.status, message: resend.body.message }).toEqual({
      status: 403,
      message: 'PARTNER_CONFIRMATIONS_LOCKED',
    });

    // Only the operator's identity may lift it.
    expect(await statusAs('gateway', { partnerId: ctx.partner.partnerId })).toBe(status.PERMISSION_DENIED);
    const unlocked = await runOps(['confirmations', 'unlock', '--partner', ctx.partner.partnerId]);
    expect(unlocked).toEqual({
      partnerId: ctx.partner.partnerId,
      wasLocked: true,
      lockedAt: expect.stringMatching(ISO_MS),
      wrongCodesCleared: BUDGET,
    });
    expect(await runOps(['confirmations', 'unlock', '--partner', ctx.partner.partnerId])).toEqual({
      partnerId: ctx.partner.partnerId,
      wasLocked: false,
      wrongCodesCleared: 0,
    });

    const fresh = await createTransfer(ctx);
    const confirmed = await ctx.http.post(`/v1/confirmations/${fresh.confirmationId}`, { code: fresh.code });
    expect({ status: confirmed.status, subjectId: confirmed.body.subjectId }).toEqual({
      status: 200,
      subjectId: fresh.id,
    });
  });
});
