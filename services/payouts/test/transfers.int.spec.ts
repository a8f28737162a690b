// Proves KES transfers end to end through the gateway against the real stack:
// create (202, the hold of amount + fee, a code to the administrator) →
// confirm → the sandbox bank settles (hold posted, transfer.settled with the
// spec's data) or refuses (hold voided, transfer.failed); a beneficiary name
// the bank does not match is accepted and fails at the bank after confirmation
// (transfer.failed TRANSFER_NAME_MISMATCH, hold voided, daily cap given back);
// each create refusal (shape, per-transfer cap, balance, no administrator)
// leaves no hold; unknown and foreign transfers are 404; a bank that does not
// answer at first is asked again with the same reference and pays once.
// A test that reads the shared partner's balance before and after must see
// only its own transfer: tests whose transfers are left unconfirmed (their
// holds come back when the codes lapse, 10 s later) use a partner of their own.
import { UUID_PATTERN } from '@platform/ids';
import { createTestPartner, PartnerHttpClient, runOps } from '@platform/testing';
import {
  eventFor,
  FEE_KES,
  ISO_MS,
  kesBalance,
  latestCode,
  minus,
  partnerOfBlock,
  payoutsPartner,
  transferBody,
  transferReaches,
} from './support';

describe('KES transfers', () => {
  const ctx = partnerOfBlock({ fundKes: '100000.00' });

  it('creates, confirms and settles a transfer, posting amount + fee once', async () => {
    const before = await kesBalance(ctx.http);
    const body = transferBody({ partnerReference: 'INV-2026-001' });
    const created = await ctx.http.post('/v1/transfers', body);
    expect(created.status).toBe(202);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID_PATTERN),
      status: 'awaiting_confirmation',
      rail: 'mobile_money',
      amount: { currency: 'KES', value: '100.00' },
      fee: { currency: 'KES', value: FEE_KES },
      destination: { accountNumber: '****5678', accountName: 'Jane Wanjiru', bankCode: null },
      nameVerification: 'verified',
      verifiedAccountName: 'Jane Wanjiru',
      partnerReference: 'INV-2026-001',
      failureCode: null,
      createdAt: expect.stringMatching(ISO_MS),
      confirmedAt: null,
      settledAt: null,
      confirmation: {
        id: expect.stringMatching(UUID_PATTERN),
        channel: 'email',
        deliveredTo: expect.stringMatching(/^t\*\*\*@t[0-9a-f]{8}\.example\.com$/),
        expiresAt: expect.stringMatching(ISO_MS),
        resendAvailableAt: expect.stringMatching(ISO_MS),
      },
      idempotencyKey: body.idempotencyKey,
    });
    const held = await kesBalance(ctx.http);
    expect(minus(held.held, before.held)).toBe('125.00');
    expect(minus(before.available, held.available)).toBe('125.00');
    expect((await ctx.http.get(`/v1/transfers/${created.body.id}`)).body).toEqual(created.body);

    const code = await latestCode(ctx.http, created.body.id);
    const confirmed = await ctx.http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({
      confirmationId: created.body.confirmation.id,
      subjectType: 'transfer',
      subjectId: created.body.id,
      status: 'confirmed',
      verifiedAt: expect.stringMatching(ISO_MS),
    });

    const settled = await transferReaches(ctx.http, created.body.id, 'settled');
    expect(settled.confirmedAt).toMatch(ISO_MS);
    expect(settled.settledAt).toMatch(ISO_MS);
    const after = await kesBalance(ctx.http);
    expect(after.held).toBe(before.held);
    expect(minus(before.available, after.available)).toBe('125.00');
    const event = await eventFor(ctx.receiver, 'transfer.settled', created.body.id);
    expect(event.data).toEqual({
      transferId: created.body.id,
      partnerReference: 'INV-2026-001',
      rail: 'mobile_money',
      status: 'settled',
      amount: { currency: 'KES', value: '100.00' },
      fee: { currency: 'KES', value: FEE_KES },
      destinationAccountNumber: '****5678',
      failureCode: null,
      settledAt: expect.stringMatching(ISO_MS),
    });
  });

  it('accepts bank rails with a bankCode and a normalised phone number on mobile money', async () => {
    // A partner of its own: these transfers are never confirmed, and their holds come back when
    // their codes lapse (10 s), which must not fall inside another test's balance reading.
    const own = await payoutsPartner({ fundKes: '1000.00' });
    try {
      const bank = await own.http.post(
        '/v1/transfers',
        transferBody({
          rail: 'pesalink',
          destination: { accountNumber: '0123456789', accountName: 'Acme Ltd', bankCode: '01' },
        }),
      );
      expect(bank.status).toBe(202);
      expect(bank.body.destination).toEqual({ accountNumber: '****6789', accountName: 'Acme Ltd', bankCode: '01' });
      const phone = await own.http.post(
        '/v1/transfers',
        transferBody({ destination: { accountNumber: '+254712345679', accountName: 'Jane Wanjiru' } }),
      );
      expect(phone.status).toBe(202);
      expect(phone.body.destination.accountNumber).toBe('****5679');
      // One rule for Kenyan numbers across payouts (src/domain/msisdn.ts): spaces and dashes are refused, not guessed at.
      const spaced = await own.http.post(
        '/v1/transfers',
        transferBody({ destination: { accountNumber: '0712 345 679', accountName: 'Jane Wanjiru' } }),
      );
      expect(spaced.status).toBe(400);
    } finally {
      await own.receiver.close();
    }
  });

  it('fails a transfer the bank refuses, voiding the hold and firing transfer.failed', async () => {
    const before = await kesBalance(ctx.http);
    const created = await ctx.http.post(
      '/v1/transfers',
      transferBody({ destination: { accountNumber: '254711110000', accountName: 'Refused Person' } }),
    );
    expect(created.status).toBe(202);
    const code = await latestCode(ctx.http, created.body.id);
    expect((await ctx.http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code })).status).toBe(200);
    const failed = await transferReaches(ctx.http, created.body.id, 'failed');
    expect(failed.failureCode).toBe('PROVIDER_REJECTED');
    expect(failed.settledAt).toBeNull();
    expect(await kesBalance(ctx.http)).toEqual(
      expect.objectContaining({ available: before.available, held: before.held }),
    );
    const event = await eventFor(ctx.receiver, 'transfer.failed', created.body.id);
    expect(event.data).toMatchObject({
      transferId: created.body.id,
      status: 'failed',
      failureCode: 'PROVIDER_REJECTED',
      settledAt: null,
      destinationAccountNumber: '****0000',
    });
  });

  it('asks a bank that did not answer again with the same reference, and pays once', async () => {
    const before = await kesBalance(ctx.http);
    const created = await ctx.http.post(
      '/v1/transfers',
      transferBody({ destination: { accountNumber: '254722222222', accountName: 'NOANSWER Bank Test' } }),
    );
    expect(created.status).toBe(202);
    const code = await latestCode(ctx.http, created.body.id);
    expect((await ctx.http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code })).status).toBe(200);
    await transferReaches(ctx.http, created.body.id, 'settled');
    const after = await kesBalance(ctx.http);
    expect(minus(before.available, after.available)).toBe('125.00');
    expect(after.held).toBe(before.held);
  });

  it.each([
    ['an unknown rail', { rail: 'carrier_pigeon' }, 'Validation failed on: rail'],
    [
      'a bank rail without bankCode',
      { rail: 'rtgs', destination: { accountNumber: '0123456789', accountName: 'Acme' } },
      'Validation failed on: destination.bankCode',
    ],
    [
      'a bankCode on mobile money',
      { destination: { accountNumber: '254712345678', accountName: 'Jane', bankCode: '01' } },
      'Validation failed on: destination.bankCode',
    ],
    [
      'a phone number that is not Kenyan',
      { destination: { accountNumber: '+14155550100', accountName: 'Jane' } },
      'Validation failed on: destination.accountNumber',
    ],
    ['three decimals', { amount: { currency: 'KES', value: '10.001' } }, 'Validation failed on: amount.value'],
    ['another currency', { amount: { currency: 'USD', value: '10.00' } }, 'Validation failed on: amount.currency'],
    ['a number amount', { amount: { currency: 'KES', value: 10 } }, 'Validation failed on: amount.value'],
    ['a bad idempotency key', { idempotencyKey: 'has spaces' }, 'Validation failed on: idempotencyKey'],
  ])('refuses %s with 400', async (_what, overrides, message) => {
    const refused = await ctx.http.post('/v1/transfers', transferBody(overrides));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(message);
  });

  it.each([
    [
      'an amount over the per-transfer cap',
      { amount: { currency: 'KES', value: '1000000.01' } },
      422,
      'TRANSFER_EXCEEDS_PER_TRANSFER_CAP',
    ],
    ['more than the balance', { amount: { currency: 'KES', value: '999999.00' } }, 422, 'INSUFFICIENT_KES_BALANCE'],
  ])('refuses %s, holding nothing', async (_what, overrides, status, code) => {
    // A partner of its own: the retried transfer's hold comes back when its code lapses (10 s).
    const own = await payoutsPartner({ fundKes: '100000.00' });
    try {
      const before = await kesBalance(own.http);
      const body = transferBody(overrides);
      const refused = await own.http.post('/v1/transfers', body);
      expect(refused.status).toBe(status);
      expect(refused.body.message).toBe(code);
      expect(await kesBalance(own.http)).toEqual(before);
      // The key was not consumed by a refusal: the same key with a valid body creates.
      const retried = await own.http.post('/v1/transfers', transferBody({ idempotencyKey: body.idempotencyKey }));
      expect(retried.status).toBe(202);
    } finally {
      await own.receiver.close();
    }
  });

  it('refuses a partner without an administrator with 409 NO_ADMINISTRATOR_REGISTERED', async () => {
    const bare = await payoutsPartner({ fundKes: '1000.00', withAdmin: false });
    try {
      const refused = await bare.http.post('/v1/transfers', transferBody());
      expect(refused.status).toBe(409);
      expect(refused.body.message).toBe('NO_ADMINISTRATOR_REGISTERED');
      expect((await kesBalance(bare.http)).held).toBe('0.00');
    } finally {
      await bare.receiver.close();
    }
  });

  it('refuses a suspended partner with 409 PARTNER_SUSPENDED, holding and reserving nothing, until resumed', async () => {
    const suspended = await payoutsPartner({ fundKes: '1000.00' });
    try {
      await runOps(['partner', 'suspend', '--partner', suspended.partner.partnerId]);
      const refused = await suspended.http.post('/v1/transfers', transferBody());
      expect({ status: refused.status, code: refused.body.message }).toEqual({
        status: 409,
        code: 'PARTNER_SUSPENDED',
      });
      expect((await kesBalance(suspended.http)).held).toBe('0.00');
      await runOps(['partner', 'resume', '--partner', suspended.partner.partnerId]);
      expect((await suspended.http.post('/v1/transfers', transferBody())).status).toBe(202);
    } finally {
      await suspended.receiver.close();
    }
  });

  it('answers 404 TRANSFER_NOT_FOUND for unknown, malformed and foreign ids', async () => {
    const created = await ctx.http.post('/v1/transfers', transferBody());
    const other = new PartnerHttpClient(await createTestPartner());
    for (const [client, path] of [
      [ctx.http, '/v1/transfers/00000000-0000-4000-8000-000000000000'],
      [ctx.http, '/v1/transfers/nope'],
      [other, `/v1/transfers/${created.body.id}`],
    ] as const) {
      const read = await client.get(path);
      expect(read.status).toBe(404);
      expect(read.body.message).toBe('TRANSFER_NOT_FOUND');
    }
    const foreignConfirm = await other.post(`/v1/confirmations/${created.body.confirmation.id}`, { code: '123456' });
    expect(foreignConfirm.status).toBe(404);
    expect(foreignConfirm.body.message).toBe('CONFIRMATION_NOT_FOUND');
  });

  it('accepts a name the bank does not match and fails it at the bank after confirmation, giving back the hold and the daily cap', async () => {
    // A partner of its own, with a daily cap small enough to show the transfer's usage taken and given back.
    const own = await payoutsPartner({ fundKes: '5000.00', dailyCapKes: '1000.00' });
    try {
      const before = await kesBalance(own.http);
      const body = transferBody({
        amount: { currency: 'KES', value: '700.00' },
        destination: { accountNumber: '254712345678', accountName: 'MISMATCH Person' },
      });
      const created = await own.http.post('/v1/transfers', body);
      expect(created.status).toBe(202);
      expect(created.body).toMatchObject({
        status: 'awaiting_confirmation',
        nameVerification: 'unavailable',
        verifiedAccountName: null,
        failureCode: null,
        confirmation: { id: expect.stringMatching(UUID_PATTERN) },
      });
      expect(minus((await kesBalance(own.http)).held, before.held)).toBe('725.00');
      const overCap = await own.http.post(
        '/v1/transfers',
        transferBody({ amount: { currency: 'KES', value: '300.01' } }),
      );
      expect({ status: overCap.status, code: overCap.body.message }).toEqual({
        status: 422,
        code: 'DAILY_CAP_EXCEEDED',
      });

      const code = await latestCode(own.http, created.body.id);
      expect((await own.http.post(`/v1/confirmations/${created.body.confirmation.id}`, { code })).status).toBe(200);
      const failed = await transferReaches(own.http, created.body.id, 'failed');
      expect(failed).toMatchObject({
        failureCode: 'TRANSFER_NAME_MISMATCH',
        confirmedAt: expect.stringMatching(ISO_MS),
        settledAt: null,
      });
      const event = await eventFor(own.receiver, 'transfer.failed', created.body.id);
      expect(event.data).toEqual({
        transferId: created.body.id,
        partnerReference: body.idempotencyKey,
        rail: 'mobile_money',
        status: 'failed',
        amount: { currency: 'KES', value: '700.00' },
        fee: { currency: 'KES', value: FEE_KES },
        destinationAccountNumber: '****5678',
        failureCode: 'TRANSFER_NAME_MISMATCH',
        settledAt: null,
      });
      // The hold is voided (nothing moved) and the cap usage released: the whole cap fits again.
      expect(await kesBalance(own.http)).toEqual(before);
      expect(
        (await own.http.post('/v1/transfers', transferBody({ amount: { currency: 'KES', value: '1000.00' } }))).status,
      ).toBe(202);
    } finally {
      await own.receiver.close();
    }
  });
});
