// Proves transfer batches through the gateway against the real stack: each
// item is checked as a single transfer (refused items carry their failure
// code and hold nothing, the others hold amount + fee), one code confirms the
// whole batch and every accepted item settles or fails on its own (an item
// whose name the bank does not match fails at the bank after confirmation,
// giving back its hold and daily cap); batch
// idempotency (same body → the original with Idempotent-Replayed, another
// body → 409, concurrent replays → one batch); the item bound (20); a lapsed
// batch code expires every item with confirmation.expired and gives back the
// holds; unknown and foreign batches are 404 BATCH_NOT_FOUND.
import { randomUUID } from 'node:crypto';
import { UUID_PATTERN } from '@platform/ids';
import { createTestPartner, PartnerHttpClient } from '@platform/testing';
import {
  eventFor,
  ISO_MS,
  kesBalance,
  latestCode,
  minus,
  partnerOfBlock,
  payoutsPartner,
  transferBody,
  transferReaches,
} from './support';

describe('Transfer batches', () => {
  const ctx = partnerOfBlock({ fundKes: '50000.00' });

  const batchBody = () => ({
    idempotencyKey: `batch-${randomUUID()}`,
    items: [
      transferBody({ amount: { currency: 'KES', value: '100.00' } }),
      transferBody({ destination: { accountNumber: '254712345678', accountName: 'MISMATCH Payee' } }),
      transferBody({
        rail: 'rtgs',
        destination: { accountNumber: '0123450000', accountName: 'Refused Bank', bankCode: '01' },
        amount: { currency: 'KES', value: '200.00' },
      }),
      transferBody({ amount: { currency: 'KES', value: '1.001' } }),
      transferBody({ amount: { currency: 'KES', value: '1000000.01' } }),
    ],
  });

  it('refuses bad items with their codes, confirms the rest with one code, and settles or fails each', async () => {
    const before = await kesBalance(ctx.http);
    const body = batchBody();
    const created = await ctx.http.post('/v1/transfers/batch', body);
    expect(created.status).toBe(202);
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID_PATTERN),
      status: 'awaiting_confirmation',
      itemCount: 5,
      acceptedCount: 3,
      failedCount: 2,
      items: [
        {
          transferId: expect.stringMatching(UUID_PATTERN),
          idempotencyKey: body.items[0].idempotencyKey,
          accepted: true,
          failureCode: null,
        },
        {
          transferId: expect.stringMatching(UUID_PATTERN),
          idempotencyKey: body.items[1].idempotencyKey,
          accepted: true,
          failureCode: null,
        },
        {
          transferId: expect.stringMatching(UUID_PATTERN),
          idempotencyKey: body.items[2].idempotencyKey,
          accepted: true,
          failureCode: null,
        },
        {
          transferId: null,
          idempotencyKey: body.items[3].idempotencyKey,
          accepted: false,
          failureCode: 'VALIDATION_FAILED',
        },
        {
          transferId: null,
          idempotencyKey: body.items[4].idempotencyKey,
          accepted: false,
          failureCode: 'TRANSFER_EXCEEDS_PER_TRANSFER_CAP',
        },
      ],
      createdAt: expect.stringMatching(ISO_MS),
      confirmedAt: null,
      confirmation: {
        id: expect.stringMatching(UUID_PATTERN),
        channel: 'email',
        deliveredTo: expect.stringContaining('***@'),
        expiresAt: expect.stringMatching(ISO_MS),
        resendAvailableAt: expect.stringMatching(ISO_MS),
      },
      idempotencyKey: body.idempotencyKey,
    });
    expect(minus((await kesBalance(ctx.http)).held, before.held)).toBe('475.00');

    const code = await latestCode(ctx.http, created.body.id);
    const confirmed = await ctx.http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({
      subjectType: 'transfer_batch',
      subjectId: created.body.id,
      status: 'confirmed',
    });

    const [first, second, third] = created.body.items;
    await transferReaches(ctx.http, first.transferId, 'settled');
    expect((await transferReaches(ctx.http, second.transferId, 'failed')).failureCode).toBe('TRANSFER_NAME_MISMATCH');
    const failed = await transferReaches(ctx.http, third.transferId, 'failed');
    expect(failed.failureCode).toBe('PROVIDER_REJECTED');
    const after = await kesBalance(ctx.http);
    expect(after.held).toBe(before.held);
    expect(minus(before.available, after.available)).toBe('125.00');
    const read = await ctx.http.get(`/v1/transfers/batch/${created.body.id}`);
    expect(read.body).toMatchObject({
      id: created.body.id,
      status: 'completed',
      confirmedAt: expect.stringMatching(ISO_MS),
    });
    await eventFor(ctx.receiver, 'transfer.settled', first.transferId);
    await eventFor(ctx.receiver, 'transfer.failed', third.transferId);
  });

  it('accepts an item whose name the bank does not match and fails it at the bank after confirmation, giving back its hold and daily cap', async () => {
    // A partner of its own, with a daily cap small enough to show the item's usage taken and given back.
    const own = await payoutsPartner({ fundKes: '5000.00', dailyCapKes: '1000.00' });
    try {
      const before = await kesBalance(own.http);
      const body = {
        idempotencyKey: `batch-${randomUUID()}`,
        items: [
          transferBody({ amount: { currency: 'KES', value: '200.00' } }),
          transferBody({
            amount: { currency: 'KES', value: '700.00' },
            destination: { accountNumber: '254712340001', accountName: 'Payee MISMATCH' },
          }),
        ],
      };
      const created = await own.http.post('/v1/transfers/batch', body);
      expect(created.status).toBe(202);
      expect(created.body).toMatchObject({ status: 'awaiting_confirmation', acceptedCount: 2, failedCount: 0 });
      const [paid, mismatched] = created.body.items;
      expect(mismatched).toEqual({
        transferId: expect.stringMatching(UUID_PATTERN),
        idempotencyKey: body.items[1].idempotencyKey,
        accepted: true,
        failureCode: null,
      });
      expect(minus((await kesBalance(own.http)).held, before.held)).toBe('950.00');
      const overCap = await own.http.post(
        '/v1/transfers',
        transferBody({ amount: { currency: 'KES', value: '100.01' } }),
      );
      expect({ status: overCap.status, code: overCap.body.message }).toEqual({
        status: 422,
        code: 'DAILY_CAP_EXCEEDED',
      });

      const code = await latestCode(own.http, created.body.id);
      expect((await own.http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code })).status).toBe(200);
      await transferReaches(own.http, paid.transferId, 'settled');
      const failed = await transferReaches(own.http, mismatched.transferId, 'failed');
      expect(failed).toMatchObject({
        failureCode: 'TRANSFER_NAME_MISMATCH',
        confirmedAt: expect.stringMatching(ISO_MS),
        settledAt: null,
      });
      const event = await eventFor(own.receiver, 'transfer.failed', mismatched.transferId);
      expect(event.data).toMatchObject({
        transferId: mismatched.transferId,
        status: 'failed',
        failureCode: 'TRANSFER_NAME_MISMATCH',
        settledAt: null,
        destinationAccountNumber: '****0001',
      });
      expect((await own.http.get(`/v1/transfers/batch/${created.body.id}`)).body.status).toBe('completed');
      // Only the paid item moved value; the other's hold is voided and its cap usage released: 800 fits beside the 200.
      const after = await kesBalance(own.http);
      expect(after.held).toBe(before.held);
      expect(minus(before.available, after.available)).toBe('225.00');
      expect(
        (await own.http.post('/v1/transfers', transferBody({ amount: { currency: 'KES', value: '800.00' } }))).status,
      ).toBe(202);
    } finally {
      await own.receiver.close();
    }
  });

  it('replays a batch key with the original, refuses another body, and makes one batch from concurrent replays', async () => {
    const body = {
      idempotencyKey: `batch-${randomUUID()}`,
      items: [transferBody({ amount: { currency: 'KES', value: '5.00' } })],
    };
    const answers = await Promise.all(Array.from({ length: 4 }, () => ctx.http.post('/v1/transfers/batch', body)));
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(3);
    const reused = await ctx.http.post('/v1/transfers/batch', { ...body, items: [transferBody()] });
    expect(reused.status).toBe(409);
    expect(reused.body.message).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('bounds a batch at 20 items and refuses duplicate item keys', async () => {
    const tooMany = await ctx.http.post('/v1/transfers/batch', {
      idempotencyKey: `batch-${randomUUID()}`,
      items: Array.from({ length: 21 }, () => transferBody()),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toBe('Validation failed on: items');
    const item = transferBody();
    const duplicate = await ctx.http.post('/v1/transfers/batch', {
      idempotencyKey: `batch-${randomUUID()}`,
      items: [item, item],
    });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.message).toBe('Validation failed on: items[1].idempotencyKey');
  });

  it('reads failed when no item is accepted, sending no code', async () => {
    const created = await ctx.http.post('/v1/transfers/batch', {
      idempotencyKey: `batch-${randomUUID()}`,
      items: [transferBody({ amount: { currency: 'KES', value: '0.00' } })],
    });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ status: 'failed', acceptedCount: 0, failedCount: 1, confirmation: null });
  });

  it('expires every item of a lapsed batch code, giving back the holds', async () => {
    const own = await payoutsPartner({ fundKes: '1000.00' });
    try {
      const before = await kesBalance(own.http);
      const created = await own.http.post('/v1/transfers/batch', {
        idempotencyKey: `batch-${randomUUID()}`,
        items: [transferBody(), transferBody()],
      });
      expect(created.status).toBe(202);
      for (const item of created.body.items) await transferReaches(own.http, item.transferId, 'expired');
      expect(await kesBalance(own.http)).toEqual(before);
      expect((await own.http.get(`/v1/transfers/batch/${created.body.id}`)).body.status).toBe('expired');
      const event = await eventFor(own.receiver, 'confirmation.expired', created.body.items[0].transferId);
      expect(event.data).toMatchObject({
        confirmationId: created.body.confirmation.id,
        subjectType: 'transfer',
        subjectId: created.body.items[0].transferId,
      });
    } finally {
      await own.receiver.close();
    }
  });

  it('answers 404 BATCH_NOT_FOUND for unknown, malformed and foreign ids', async () => {
    const created = await ctx.http.post('/v1/transfers/batch', {
      idempotencyKey: `batch-${randomUUID()}`,
      items: [transferBody()],
    });
    const other = new PartnerHttpClient(await createTestPartner());
    for (const [client, path] of [
      [ctx.http, `/v1/transfers/batch/${randomUUID()}`],
      [ctx.http, '/v1/transfers/batch/nope'],
      [other, `/v1/transfers/batch/${created.body.id}`],
    ] as const) {
      const read = await client.get(path);
      expect(read.status).toBe(404);
      expect(read.body.message).toBe('BATCH_NOT_FOUND');
    }
  });
});
