// Proves the quote use case end to end with fakes at the edges: the order of
// refusals (shape, then fee schedule, then rate, then pricing), the staleness
// limit at its boundary, what is persisted (exact strings, expiry, single-use
// row) and the returned view. Pricing arithmetic itself is proved in
// domain/pricing.spec.ts. Many requests together (executeMany): each priced as
// alone, in its own log context, and refused on its own, the priced ones stored in
// one insert, one bad row falling back to single inserts without failing its
// neighbours, a failure that is not a refusal answered INTERNAL_ERROR for its item
// alone (logged under its request), the call failing only when no item could be
// answered, and more than the bound refused whole. A batch reads the fee schedules of
// all its partners in one read and their rates in one more, only for items whose
// shape passed; a failed batch read fails the items that needed it, not the refused.
// A later batch prices the items of partners whose schedule an earlier batch read with
// that schedule, reading only their rates, and stores them by the insert that checks the
// schedule is still the stored one; whatever that does not store (a changed schedule, a
// refusal, a failed insert) is answered by the ordinary path afresh, stored once. A batch
// reads its rates once, whichever path prices its items (a failing feed is asked once a
// batch), and reads the schedules of partners no batch read before while the known ones'
// quotes are priced, not after their checked insert.
import { AppError } from '@platform/errors';
import { createLogger, currentContext, Logger, RequestContext } from '@platform/logger';
import { Big } from '@platform/money';
import type { FeedRate } from '../../adapters/rate-feed/rate-feed';
import type { RawFeeSchedule } from '../../domain/fee-schedule';
import type { NewQuote, QuotePricedWith } from '../../persistence/quotes.repository';
import { CreateQuoteCommand, CreateQuoteUseCase } from './create-quote.usecase';

function silentLogger() {
  const logger = createLogger('test');
  logger.silent = true;
  return logger;
}

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';
const NOW = new Date('2024-11-21T08:00:00.000Z');
const STALENESS_LIMIT_MS = 3_000;

function setup(
  options: {
    profile?: RawFeeSchedule | null;
    rate?: FeedRate | null;
    insertMany?: (quotes: readonly NewQuote[]) => Promise<void>;
    insert?: (quote: NewQuote) => Promise<void>;
    insertIfScheduleCurrent?: (quotes: readonly QuotePricedWith[]) => Promise<void>;
    findFeeSchedule?: (partnerId: string) => Promise<RawFeeSchedule | null>;
    logger?: Logger;
  } = {},
) {
  const inserted: NewQuote[] = [];
  const batches: number[] = [];
  const checkedBatches: number[] = [];
  const latest = async (_partnerId: string): Promise<FeedRate | null> =>
    options.rate === undefined
      ? { bid: new Big('128.12345'), ask: new Big('130.98761'), observedAt: NOW }
      : options.rate;
  const rateFeed = {
    latest: jest.fn(latest),
    latestFor: jest.fn(
      async (partners: readonly string[]) =>
        new Map(await Promise.all(partners.map(async (partner) => [partner, await latest(partner)] as const))),
    ),
  };
  const findFeeSchedule = async (partner: string): Promise<RawFeeSchedule | null> =>
    options.findFeeSchedule
      ? options.findFeeSchedule(partner)
      : options.profile === undefined
        ? { feeBps: 100, feeFlatKes: '10.00', feeCapKes: '500.00' }
        : options.profile;
  const profiles = {
    findFeeSchedule: jest.fn(findFeeSchedule),
    findFeeSchedules: jest.fn(async (partners: readonly string[]) => {
      const found = await Promise.all(
        partners.map(async (partner) => [partner, await findFeeSchedule(partner)] as const),
      );
      return new Map(found.flatMap(([partner, schedule]) => (schedule ? [[partner, schedule] as const] : [])));
    }),
  };
  const useCase = new CreateQuoteUseCase({
    profiles,
    quotes: {
      insert: async (quote) => {
        await options.insert?.(quote);
        inserted.push(quote);
      },
      insertMany: async (quotes) => {
        batches.push(quotes.length);
        await options.insertMany?.(quotes);
        inserted.push(...quotes);
      },
      // As the statement does: each quote stored only if its partner's schedule now is the one it was priced with.
      insertManyIfScheduleCurrent: async (quotes) => {
        checkedBatches.push(quotes.length);
        await options.insertIfScheduleCurrent?.(quotes);
        const stored = new Set<string>();
        for (const { quote, schedule } of quotes) {
          const now = await findFeeSchedule(quote.partnerId);
          if (
            now &&
            now.feeBps === schedule.feeBps &&
            now.feeFlatKes === schedule.feeFlatKes &&
            now.feeCapKes === schedule.feeCapKes
          ) {
            inserted.push(quote);
            stored.add(quote.quoteId);
          }
        }
        return stored;
      },
    },
    rateFeed,
    clock: { now: () => NOW },
    logger: options.logger ?? silentLogger(),
    quoteLifetimeMs: 1_500,
    rateStalenessLimitMs: STALENESS_LIMIT_MS,
    settlementEstimateSeconds: 60,
  });
  return { useCase, inserted, batches, checkedBatches, rateFeed, profiles };
}

type Mocks = ReturnType<typeof setup>;

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('CreateQuoteUseCase', () => {
  it('prices from the 4-decimal rate, persists the quote and returns every field at exact scale', async () => {
    const { useCase, inserted } = setup();
    const quote = await useCase.execute({ partnerId, side: 'buy', kesAmount: '1000.00' });
    // ask 130.98761 → 130.9877; usdt = floor6(1000 / 130.9877) = 7.634304; fee = 10.00 + 10.00
    expect(quote).toEqual({
      quoteId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      side: 'buy',
      kesAmount: '1000.00',
      usdtAmount: '7.634304',
      rate: '130.9877',
      kesTotalAmount: '1020.00',
      fee: { kesAmount: '20.00', percentBps: 100, flatKesAmount: '10.00', capKesAmount: '500.00' },
      expiresAt: '2024-11-21T08:00:01.500Z',
      settlementEstimateSeconds: 60,
    });
    expect(inserted).toHaveLength(1);
    expect(inserted[0]).toMatchObject({
      quoteId: quote.quoteId,
      partnerId,
      pricedBy: 'KES',
      rateObservedAt: NOW,
      createdAt: NOW,
    });
    expect(inserted[0]!.expiresAt.toISOString()).toBe(quote.expiresAt);
  });

  it('uses the bid rounded down for a sell and shows a null cap as null', async () => {
    const { useCase } = setup({ profile: { feeBps: 0, feeFlatKes: '0.00', feeCapKes: null } });
    const quote = await useCase.execute({ partnerId, side: 'sell', usdtAmount: '1.000000' });
    expect(quote.rate).toBe('128.1234');
    expect(quote.kesAmount).toBe('128.12');
    expect(quote.fee).toEqual({ kesAmount: '0.00', percentBps: 0, flatKesAmount: '0.00', capKesAmount: null });
  });

  it('checks the request shape before anything else', async () => {
    const { useCase, rateFeed } = setup({ profile: null, rate: null });
    expect((await refusal(useCase.execute({ partnerId, side: 'buy', kesAmount: '1.001' }))).code).toBe(
      'VALIDATION_FAILED',
    );
    expect(rateFeed.latest).not.toHaveBeenCalled();
  });

  it('refuses with FEE_PRICING_INVALID without a profile or with a corrupt one, ahead of a missing rate', async () => {
    for (const profile of [null, { feeBps: 100, feeFlatKes: '1.234', feeCapKes: null }]) {
      const { useCase, inserted } = setup({ profile, rate: null });
      expect((await refusal(useCase.execute({ partnerId, side: 'buy', kesAmount: '1.00' }))).code).toBe(
        'FEE_PRICING_INVALID',
      );
      expect(inserted).toHaveLength(0);
    }
  });

  it('refuses with RATE_UNAVAILABLE when there is no rate or it is past the staleness limit', async () => {
    const tooOld = new Date(NOW.getTime() - STALENESS_LIMIT_MS - 1);
    for (const rate of [null, { bid: new Big('128'), ask: new Big('130'), observedAt: tooOld }]) {
      const { useCase, inserted } = setup({ rate });
      expect((await refusal(useCase.execute({ partnerId, side: 'buy', kesAmount: '1.00' }))).code).toBe(
        'RATE_UNAVAILABLE',
      );
      expect(inserted).toHaveLength(0);
    }
  });

  it('still quotes from a rate exactly at the staleness limit', async () => {
    const atLimit = new Date(NOW.getTime() - STALENESS_LIMIT_MS);
    const { useCase } = setup({ rate: { bid: new Big('128'), ask: new Big('130'), observedAt: atLimit } });
    expect((await useCase.execute({ partnerId, side: 'buy', kesAmount: '1.00' })).rate).toBe('130.0000');
  });

  it('persists nothing when pricing refuses', async () => {
    const { useCase, inserted } = setup();
    expect((await refusal(useCase.execute({ partnerId, side: 'sell', kesAmount: '10.00' }))).code).toBe(
      'FEE_EXCEEDS_PROCEEDS',
    );
    expect((await refusal(useCase.execute({ partnerId, side: 'sell', usdtAmount: '0.000001' }))).partnerMessage).toBe(
      'Validation failed on: usdtAmount',
    );
    expect(inserted).toHaveLength(0);
  });

  it('issues a distinct quote each time', async () => {
    const { useCase } = setup();
    const first = await useCase.execute({ partnerId, side: 'buy', kesAmount: '1.00' });
    const second = await useCase.execute({ partnerId, side: 'buy', kesAmount: '1.00' });
    expect(first.quoteId).not.toBe(second.quoteId);
  });
});

interface Line {
  level: string;
  message: string;
  fields: Record<string, unknown>;
  context: RequestContext;
}

/** A logger that records each line with the log context it was written in. */
function recordingLogger() {
  const lines: Line[] = [];
  const record =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      lines.push({ level, message, fields, context: { ...currentContext() } });
    };
  const logger = { info: record('info'), warn: record('warn'), error: record('error') } as unknown as Logger;
  return { logger, lines };
}

const ITEMS_MAX = 8;
const PARTNER_B = 'c5d0e4a2-1111-4a2b-9c3d-000000000001';
const codeOrAmount = (outcome: { quote: { kesTotalAmount: string } } | { refusal: AppError }) =>
  'quote' in outcome ? outcome.quote.kesTotalAmount : outcome.refusal.code;

describe('CreateQuoteUseCase.executeMany', () => {
  const item = (requestId: string, kesAmount: string, partner = partnerId) => ({
    command: { partnerId: partner, side: 'buy', kesAmount },
    requestId,
  });

  it('prices each as alone, refuses each on its own, and stores the priced ones in one insert', async () => {
    const { useCase, inserted, batches } = setup();
    const outcomes = await useCase.executeMany(
      [item('req-a', '1000.00'), item('req-b', '1000.001'), item('req-c', '2000.00')],
      ITEMS_MAX,
    );
    expect(outcomes.map(codeOrAmount)).toEqual(['1020.00', 'VALIDATION_FAILED', '2030.00']);
    expect(batches).toEqual([2]);
    expect(inserted.map((quote) => quote.quoteId)).toEqual(
      outcomes.flatMap((outcome) => ('quote' in outcome ? [outcome.quote.quoteId] : [])),
    );
    const [first] = outcomes as Array<{ quote: { expiresAt: string } }>;
    expect(first.quote.expiresAt).toBe('2024-11-21T08:00:01.500Z');
  });

  it("reads every partner's fee schedule in one read and their rates in one more, whatever the items", async () => {
    const PARTNER_C = 'c5d0e4a2-1111-4a2b-9c3d-000000000002';
    const { useCase, rateFeed, profiles } = setup();
    const outcomes = await useCase.executeMany(
      [
        item('req-a', '1000.00'),
        item('req-b', '2000.00', PARTNER_B),
        item('req-c', '3000.00'),
        item('req-d', '4000.00', PARTNER_B),
        item('req-e', '1.001', PARTNER_C), // refused by its shape: its partner is not read
      ],
      ITEMS_MAX,
    );
    expect(outcomes.map(codeOrAmount)).toEqual(['1020.00', '2030.00', '3040.00', '4050.00', 'VALIDATION_FAILED']);
    expect(profiles.findFeeSchedules.mock.calls).toEqual([[[partnerId, PARTNER_B]]]);
    expect(rateFeed.latestFor.mock.calls).toEqual([[[partnerId, PARTNER_B]]]);
    expect(profiles.findFeeSchedule).not.toHaveBeenCalled();
    expect(rateFeed.latest).not.toHaveBeenCalled();
    await useCase.executeMany([item('req-f', '1000.00', PARTNER_C)], ITEMS_MAX);
    expect(profiles.findFeeSchedules).toHaveBeenCalledTimes(2); // a partner no batch has read yet is read
    await useCase.executeMany([item('req-g', '1.001', 'c5d0e4a2-1111-4a2b-9c3d-000000000003')], ITEMS_MAX);
    expect(profiles.findFeeSchedules).toHaveBeenCalledTimes(2); // no item passed its shape: nothing to read
    expect(rateFeed.latestFor).toHaveBeenCalledTimes(2);
  });

  it("prices each partner's items with that partner's own fee schedule and rate", async () => {
    const { useCase } = setup({
      findFeeSchedule: async (partner) =>
        partner === PARTNER_B
          ? { feeBps: 0, feeFlatKes: '1.00', feeCapKes: null }
          : { feeBps: 100, feeFlatKes: '10.00', feeCapKes: '500.00' },
    });
    const outcomes = await useCase.executeMany(
      [item('req-a', '1000.00', PARTNER_B), item('req-b', '1000.00'), item('req-c', '1000.00', PARTNER_B)],
      ITEMS_MAX,
    );
    expect(outcomes.map(codeOrAmount)).toEqual(['1001.00', '1020.00', '1001.00']);
  });

  it('refuses with FEE_PRICING_INVALID only the items of a partner without a profile', async () => {
    const { useCase } = setup({
      findFeeSchedule: async (partner) =>
        partner === PARTNER_B ? null : { feeBps: 100, feeFlatKes: '10.00', feeCapKes: '500.00' },
    });
    const outcomes = await useCase.executeMany(
      [item('req-a', '1000.00', PARTNER_B), item('req-b', '1000.00')],
      ITEMS_MAX,
    );
    expect(outcomes.map(codeOrAmount)).toEqual(['FEE_PRICING_INVALID', '1020.00']);
  });

  it("logs each item's lines in its own context: its request id and partner id", async () => {
    const { logger, lines } = recordingLogger();
    const { useCase, rateFeed } = setup({ logger });
    rateFeed.latestFor.mockImplementationOnce(
      async () =>
        new Map([
          [PARTNER_B, null],
          [partnerId, { bid: new Big('128.12345'), ask: new Big('130.98761'), observedAt: NOW }],
        ]),
    );
    const outcomes = await useCase.executeMany(
      [item('req-a', '1000.00', PARTNER_B), item('req-b', '1000.00')],
      ITEMS_MAX,
    );
    expect(outcomes.map(codeOrAmount)).toEqual(['RATE_UNAVAILABLE', '1020.00']);
    expect(lines).toEqual([
      expect.objectContaining({
        message: 'no live rate; refusing to quote',
        context: expect.objectContaining({ requestId: 'req-a', partnerId: PARTNER_B }),
      }),
    ]);
  });

  it('falls back to single inserts when the batch insert fails: one bad row fails only its own item', async () => {
    const { useCase, batches } = setup({
      insertMany: async () => {
        throw new Error('check constraint');
      },
      insert: async (quote) => {
        if (quote.priced.kesAmount.eq(new Big('2000.00'))) throw new Error('check constraint');
      },
    });
    const outcomes = await useCase.executeMany([item('req-a', '1000.00'), item('req-b', '2000.00')], ITEMS_MAX);
    expect(outcomes.map(codeOrAmount)).toEqual(['1020.00', 'INTERNAL_ERROR']);
    expect(batches).toEqual([2]);
  });

  it('answers a failure that is not a refusal as INTERNAL_ERROR for its item alone, logged under its request', async () => {
    const { logger, lines } = recordingLogger();
    const { useCase, rateFeed } = setup({ logger });
    // A rate pricing cannot read (a bug): only the items priced from it fail.
    const unreadable = { bid: undefined, ask: undefined, observedAt: NOW } as unknown as FeedRate;
    rateFeed.latestFor.mockImplementationOnce(
      async () =>
        new Map([
          [partnerId, { bid: new Big('128.12345'), ask: new Big('130.98761'), observedAt: NOW }],
          [PARTNER_B, unreadable],
        ]),
    );
    const outcomes = await useCase.executeMany(
      [item('req-a', '1000.00'), item('req-b', '1000.00', PARTNER_B), item('req-c', '1000.001')],
      ITEMS_MAX,
    );
    expect(outcomes.map(codeOrAmount)).toEqual(['1020.00', 'INTERNAL_ERROR', 'VALIDATION_FAILED']);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'error',
        fields: { error: expect.any(TypeError) },
        context: expect.objectContaining({ requestId: 'req-b', partnerId: PARTNER_B }),
      }),
    ]);
  });

  // A read that rejects, and one that throws before it returns a promise: both fail every item
  // that needed them, each logged under the item, and keep the neighbours' refusals.
  it.each([
    ['rejects', (mocks: Mocks, error: Error) => mocks.profiles.findFeeSchedules.mockRejectedValueOnce(error)],
    [
      'throws before it returns a promise',
      (mocks: Mocks, error: Error) =>
        mocks.rateFeed.latestFor.mockImplementationOnce(() => {
          throw error;
        }),
    ],
  ])('fails every item that needed a batch read that %s, logged under each', async (how, breakRead) => {
    const { logger, lines } = recordingLogger();
    const failure = new Error(`batch read ${how}`);
    const mocks = setup({ logger });
    breakRead(mocks, failure);
    const outcomes = await mocks.useCase.executeMany(
      [item('req-a', '1000.00'), item('req-b', '1000.00', PARTNER_B), item('req-c', '1000.001')],
      ITEMS_MAX,
    );
    expect(outcomes.map(codeOrAmount)).toEqual(['INTERNAL_ERROR', 'INTERNAL_ERROR', 'VALIDATION_FAILED']);
    expect(mocks.inserted).toEqual([]);
    expect(lines.map((line) => line.context.requestId)).toEqual(['req-a', 'req-b']);
    // The injected error itself, not one that merely reads the same.
    for (const line of lines) expect(line.fields.error).toBe(failure);
  });

  it("answers the lone priced quote's failed insert as its own INTERNAL_ERROR beside a neighbour's refusal", async () => {
    const { useCase, batches } = setup({
      insertMany: async () => {
        throw new Error('Connection terminated');
      },
    });
    const outcomes = await useCase.executeMany([item('req-a', '1000.00'), item('req-b', '1000.001')], ITEMS_MAX);
    expect(outcomes.map(codeOrAmount)).toEqual(['INTERNAL_ERROR', 'VALIDATION_FAILED']);
    expect(batches).toEqual([1]);
  });

  it('fails the call only when no item could be answered: nothing stored, or the one item failed', async () => {
    const down = new Error('Connection terminated');
    const storeDown = setup({
      insertMany: async () => {
        throw down;
      },
      insert: async () => {
        throw down;
      },
    });
    await expect(
      storeDown.useCase.executeMany([item('req-a', '1000.00'), item('req-b', '2000.00')], ITEMS_MAX),
    ).rejects.toBe(down);
    const feedDown = setup();
    feedDown.rateFeed.latestFor.mockRejectedValueOnce(down);
    await expect(feedDown.useCase.executeMany([item('req-a', '1000.00')], ITEMS_MAX)).rejects.toBe(down);
    expect(feedDown.inserted).toEqual([]);
  });

  it('refuses more items than one batch may carry, whole', async () => {
    const { useCase, inserted } = setup();
    const items = Array.from({ length: ITEMS_MAX + 1 }, (_, index) => item(`req-${index}`, '1000.00'));
    await expect(useCase.executeMany(items, ITEMS_MAX)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      fields: ['items'],
    });
    expect(inserted).toEqual([]);
  });
});

describe('CreateQuoteUseCase.executeMany with fee schedules an earlier batch read', () => {
  const SCHEDULE_A: RawFeeSchedule = { feeBps: 100, feeFlatKes: '10.00', feeCapKes: '500.00' };
  const item = (requestId: string, command: Omit<CreateQuoteCommand, 'partnerId'>, partner = partnerId) => ({
    command: { partnerId: partner, ...command },
    requestId,
  });
  const buy = (requestId: string, kesAmount: string, partner = partnerId) =>
    item(requestId, { side: 'buy', kesAmount }, partner);
  const quoteIds = (outcomes: Array<{ quote: { quoteId: string } } | { refusal: AppError }>) =>
    outcomes.flatMap((outcome) => ('quote' in outcome ? [outcome.quote.quoteId] : []));
  /** Each partner's stored schedule, changed by the test between batches. */
  function storedSchedules(initial: Record<string, RawFeeSchedule | null>) {
    const stored = new Map(Object.entries(initial));
    return {
      set: (partner: string, schedule: RawFeeSchedule | null) => stored.set(partner, schedule),
      findFeeSchedule: async (partner: string) => stored.get(partner) ?? null,
    };
  }

  it("prices known partners' items from their schedules, reads only their rates, and stores them by the checked insert", async () => {
    const schedules = storedSchedules({
      [partnerId]: SCHEDULE_A,
      [PARTNER_B]: { feeBps: 0, feeFlatKes: '1.00', feeCapKes: null },
    });
    const mocks = setup({ findFeeSchedule: schedules.findFeeSchedule });
    const first = await mocks.useCase.executeMany(
      [buy('req-a', '1000.00'), buy('req-b', '1000.00', PARTNER_B)],
      ITEMS_MAX,
    );
    const second = await mocks.useCase.executeMany(
      [buy('req-c', '1000.00', PARTNER_B), buy('req-d', '1000.001'), buy('req-e', '2000.00')],
      ITEMS_MAX,
    );
    expect(first).toEqual([
      { quote: expect.objectContaining({ usdtAmount: '7.634304', kesTotalAmount: '1020.00' }) },
      { quote: expect.objectContaining({ usdtAmount: '7.634304', kesTotalAmount: '1001.00' }) },
    ]);
    // Exactly what the ordinary path answers: the same amounts, fee and expiry, every string at its scale.
    expect(second).toEqual([
      {
        quote: {
          quoteId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          side: 'buy',
          kesAmount: '1000.00',
          usdtAmount: '7.634304',
          rate: '130.9877',
          kesTotalAmount: '1001.00',
          fee: { kesAmount: '1.00', percentBps: 0, flatKesAmount: '1.00', capKesAmount: null },
          expiresAt: '2024-11-21T08:00:01.500Z',
          settlementEstimateSeconds: 60,
        },
      },
      { refusal: expect.objectContaining({ code: 'VALIDATION_FAILED' }) },
      { quote: expect.objectContaining({ kesAmount: '2000.00', kesTotalAmount: '2030.00' }) },
    ]);
    expect(mocks.profiles.findFeeSchedules).toHaveBeenCalledTimes(1);
    expect(mocks.rateFeed.latestFor.mock.calls).toEqual([[[partnerId, PARTNER_B]], [[PARTNER_B, partnerId]]]);
    expect(mocks.batches).toEqual([2]);
    expect(mocks.checkedBatches).toEqual([2]);
    expect(mocks.inserted.map((quote) => quote.quoteId)).toEqual([...quoteIds(first), ...quoteIds(second)]);
  });

  it('prices afresh the items of a partner whose schedule changed since, with the new one; the neighbours stored once', async () => {
    const schedules = storedSchedules({
      [partnerId]: SCHEDULE_A,
      [PARTNER_B]: { feeBps: 0, feeFlatKes: '1.00', feeCapKes: null },
    });
    const mocks = setup({ findFeeSchedule: schedules.findFeeSchedule });
    await mocks.useCase.executeMany([buy('req-a', '1000.00'), buy('req-b', '1000.00', PARTNER_B)], ITEMS_MAX);
    schedules.set(PARTNER_B, { feeBps: 0, feeFlatKes: '1.0', feeCapKes: null }); // the same fee, other text: changed
    schedules.set(partnerId, { feeBps: 100, feeFlatKes: '25.00', feeCapKes: '500.00' });
    const outcomes = await mocks.useCase.executeMany(
      [buy('req-c', '1000.00'), buy('req-d', '1000.00', PARTNER_B), buy('req-e', '1000.00')],
      ITEMS_MAX,
    );
    expect(outcomes.map(codeOrAmount)).toEqual(['1035.00', '1001.00', '1035.00']);
    expect(outcomes[0]).toMatchObject({ quote: { fee: { kesAmount: '35.00', flatKesAmount: '25.00' } } });
    expect(mocks.profiles.findFeeSchedules.mock.calls[1]).toEqual([[partnerId, PARTNER_B]]);
    expect(mocks.checkedBatches).toEqual([3]); // none stored: both schedules changed
    expect(mocks.batches).toEqual([2, 3]);
    const ids = mocks.inserted.map((quote) => quote.quoteId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(2)).toEqual(quoteIds(outcomes));
    // Read afresh, known again: the next batch checks the new schedules.
    await mocks.useCase.executeMany([buy('req-f', '1000.00'), buy('req-g', '1000.00', PARTNER_B)], ITEMS_MAX);
    expect(mocks.profiles.findFeeSchedules).toHaveBeenCalledTimes(2);
    expect(mocks.checkedBatches).toEqual([3, 2]);
  });

  it('answers a refusal of a known partner from a fresh read: the refusal of today, logged once under its item', async () => {
    const { logger, lines } = recordingLogger();
    const schedules = storedSchedules({ [partnerId]: SCHEDULE_A });
    const mocks = setup({ findFeeSchedule: schedules.findFeeSchedule, logger });
    await mocks.useCase.executeMany([buy('req-a', '1000.00')], ITEMS_MAX);
    // The known schedule refuses a sell of 10.00 KES (fee 10.10); the stored one no longer does.
    schedules.set(partnerId, { feeBps: 0, feeFlatKes: '0.00', feeCapKes: null });
    const sell = await mocks.useCase.executeMany([item('req-b', { side: 'sell', kesAmount: '10.00' })], ITEMS_MAX);
    expect(sell).toEqual([{ quote: expect.objectContaining({ kesAmount: '10.00', kesTotalAmount: '10.00' }) }]);
    expect(mocks.checkedBatches).toEqual([]); // refused from the known schedule: nothing to store that way
    // No live rate for a known partner: RATE_UNAVAILABLE, logged once, by the fresh path, under the item.
    mocks.rateFeed.latestFor.mockImplementation(async () => new Map([[partnerId, null]]));
    const unavailable = await mocks.useCase.executeMany([buy('req-c', '1000.00')], ITEMS_MAX);
    expect(unavailable.map(codeOrAmount)).toEqual(['RATE_UNAVAILABLE']);
    expect(lines).toEqual([
      expect.objectContaining({
        message: 'no live rate; refusing to quote',
        context: expect.objectContaining({ requestId: 'req-c', partnerId }),
      }),
    ]);
    // A known schedule that is now corrupt, or gone: FEE_PRICING_INVALID ahead of the missing rate, as always.
    schedules.set(partnerId, { feeBps: 100, feeFlatKes: '1.234', feeCapKes: null });
    const corrupt = await mocks.useCase.executeMany([buy('req-d', '1000.00')], ITEMS_MAX);
    expect(corrupt.map(codeOrAmount)).toEqual(['FEE_PRICING_INVALID']);
  });

  it('answers through the ordinary path when the checked insert fails, each quote stored once, one bad row failing alone', async () => {
    const { logger, lines } = recordingLogger();
    const mocks = setup({
      logger,
      insertIfScheduleCurrent: async () => {
        throw new Error('check constraint');
      },
      insertMany: async (quotes) => {
        if (quotes.length > 1) throw new Error('check constraint');
      },
      insert: async (quote) => {
        if (quote.priced.kesAmount.eq(new Big('2000.00'))) throw new Error('check constraint');
      },
    });
    await mocks.useCase.executeMany([buy('req-a', '1000.00')], ITEMS_MAX);
    const outcomes = await mocks.useCase.executeMany([buy('req-b', '1000.00'), buy('req-c', '2000.00')], ITEMS_MAX);
    expect(outcomes.map(codeOrAmount)).toEqual(['1020.00', 'INTERNAL_ERROR']);
    expect(mocks.checkedBatches).toEqual([2]);
    expect(mocks.batches).toEqual([1, 2]);
    expect(mocks.inserted.map((quote) => quote.quoteId).slice(1)).toEqual(quoteIds(outcomes));
    expect(lines.map((line) => [line.level, line.message])).toEqual([
      ['warn', 'quotes from known fee schedules failed; reading afresh'],
      ['warn', 'quotes insert failed; inserting each alone'],
      ['error', 'quote failed; this item answered INTERNAL_ERROR'],
    ]);
  });

  it("reads a mixed batch's rates once, and the new partners' schedules before the checked insert, not after it", async () => {
    const schedules = storedSchedules({
      [partnerId]: SCHEDULE_A,
      [PARTNER_B]: { feeBps: 0, feeFlatKes: '1.00', feeCapKes: null },
    });
    const checkedInsert = jest.fn(async () => undefined);
    const mocks = setup({ findFeeSchedule: schedules.findFeeSchedule, insertIfScheduleCurrent: checkedInsert });
    await mocks.useCase.executeMany([buy('req-a', '1000.00')], ITEMS_MAX); // partnerId known from now on
    mocks.rateFeed.latestFor.mockClear();
    mocks.profiles.findFeeSchedules.mockClear();
    const outcomes = await mocks.useCase.executeMany(
      [buy('req-b', '1000.00', PARTNER_B), buy('req-c', '2000.00'), buy('req-d', '3000.00', PARTNER_B)],
      ITEMS_MAX,
    );
    expect(outcomes.map(codeOrAmount)).toEqual(['1001.00', '2030.00', '3001.00']);
    expect(mocks.rateFeed.latestFor.mock.calls).toEqual([[[PARTNER_B, partnerId]]]);
    expect(mocks.profiles.findFeeSchedules.mock.calls).toEqual([[[PARTNER_B]]]);
    // Both reads start together and the schedules' read does not wait for the checked insert: two round trips in sequence.
    const [ratesRead] = mocks.rateFeed.latestFor.mock.invocationCallOrder;
    const [schedulesRead] = mocks.profiles.findFeeSchedules.mock.invocationCallOrder;
    const [checked] = checkedInsert.mock.invocationCallOrder;
    expect(ratesRead).toBeLessThan(checked);
    expect(schedulesRead).toBeLessThan(checked);
    expect(mocks.checkedBatches).toEqual([1]);
    expect(mocks.batches).toEqual([1, 2]);
    const ids = mocks.inserted.map((quote) => quote.quoteId).slice(1);
    expect(new Set(ids)).toEqual(new Set(quoteIds(outcomes)));
  });

  it("reads a known partner's leftovers afresh once the checked insert is done, not after the new partners' insert", async () => {
    const schedules = storedSchedules({
      [partnerId]: SCHEDULE_A,
      [PARTNER_B]: { feeBps: 0, feeFlatKes: '1.00', feeCapKes: null },
    });
    let releaseNewPartnersInsert = () => {};
    let holdInserts = false;
    const insertMany = async () => {
      // The new partner's insert waits until the leftover's fresh read has started.
      if (holdInserts) await new Promise<void>((release) => (releaseNewPartnersInsert = release));
    };
    const mocks = setup({ findFeeSchedule: schedules.findFeeSchedule, insertMany });
    await mocks.useCase.executeMany([buy('req-a', '1000.00')], ITEMS_MAX); // partnerId known from now on
    schedules.set(partnerId, { feeBps: 100, feeFlatKes: '25.00', feeCapKes: '500.00' }); // its leftover goes afresh
    mocks.profiles.findFeeSchedules.mockClear();
    holdInserts = true;
    mocks.profiles.findFeeSchedules.mockImplementation(async (partners: readonly string[]) => {
      // The second read (the leftover's) releases the new partner's insert: it must not wait for that insert.
      if (partners.includes(partnerId)) {
        holdInserts = false;
        releaseNewPartnersInsert();
      }
      const found = await Promise.all(
        partners.map(async (partner) => [partner, await schedules.findFeeSchedule(partner)] as const),
      );
      return new Map(found.flatMap(([partner, schedule]) => (schedule ? [[partner, schedule] as const] : [])));
    });
    const outcomes = await mocks.useCase.executeMany(
      [buy('req-b', '1000.00', PARTNER_B), buy('req-c', '1000.00')],
      ITEMS_MAX,
    );
    expect(outcomes.map(codeOrAmount)).toEqual(['1001.00', '1035.00']);
    expect(mocks.profiles.findFeeSchedules.mock.calls).toEqual([[[PARTNER_B]], [[partnerId]]]);
  });

  it('asks a failing rate feed once a batch, known and new partners alike, and answers each item once', async () => {
    const { logger, lines } = recordingLogger();
    const schedules = storedSchedules({
      [partnerId]: SCHEDULE_A,
      [PARTNER_B]: { feeBps: 0, feeFlatKes: '1.00', feeCapKes: null },
    });
    const mocks = setup({ findFeeSchedule: schedules.findFeeSchedule, logger });
    await mocks.useCase.executeMany([buy('req-a', '1000.00')], ITEMS_MAX); // partnerId known from now on
    /** A batch of a known partner's item, a new partner's and a refused one: its answers and lines, the feed asked once. */
    const batchDuringOutage = async (known: string, fresh: string, refused: string) => {
      lines.length = 0;
      mocks.rateFeed.latestFor.mockClear();
      const outcomes = await mocks.useCase.executeMany(
        [buy(known, '1000.00'), buy(fresh, '1000.00', PARTNER_B), buy(refused, '1000.001')],
        ITEMS_MAX,
      );
      expect(mocks.rateFeed.latestFor).toHaveBeenCalledTimes(1);
      return {
        answers: outcomes.map(codeOrAmount),
        logged: lines.map((line) => [line.message, line.context.requestId]),
      };
    };
    // The HTTP feed answers every partner null when its fetch fails (it logs that once, itself).
    mocks.rateFeed.latestFor.mockImplementation(
      async (partners) => new Map<string, FeedRate | null>(partners.map((partner) => [partner, null])),
    );
    expect(await batchDuringOutage('req-b', 'req-c', 'req-d')).toEqual({
      answers: ['RATE_UNAVAILABLE', 'RATE_UNAVAILABLE', 'VALIDATION_FAILED'],
      logged: [
        ['no live rate; refusing to quote', 'req-c'],
        ['no live rate; refusing to quote', 'req-b'],
      ],
    });
    // A feed whose read throws: each item that needed it INTERNAL_ERROR, logged once.
    mocks.rateFeed.latestFor.mockImplementation(async () => {
      throw new Error('feed down');
    });
    expect(await batchDuringOutage('req-e', 'req-f', 'req-g')).toEqual({
      answers: ['INTERNAL_ERROR', 'INTERNAL_ERROR', 'VALIDATION_FAILED'],
      logged: [
        ['quote failed; this item answered INTERNAL_ERROR', 'req-e'],
        ['quote failed; this item answered INTERNAL_ERROR', 'req-f'],
      ],
    });
    expect(mocks.checkedBatches).toEqual([]);
  });

  it('keeps no schedule that does not price, nor a partner without one: the next batch reads them again', async () => {
    const schedules = storedSchedules({ [partnerId]: { feeBps: 100, feeFlatKes: '1.234', feeCapKes: null } });
    const mocks = setup({ findFeeSchedule: schedules.findFeeSchedule });
    for (const requestId of ['req-a', 'req-b'])
      expect(
        (
          await mocks.useCase.executeMany(
            [buy(requestId, '1000.00'), buy(`${requestId}-b`, '1000.00', PARTNER_B)],
            ITEMS_MAX,
          )
        ).map(codeOrAmount),
      ).toEqual(['FEE_PRICING_INVALID', 'FEE_PRICING_INVALID']);
    expect(mocks.profiles.findFeeSchedules).toHaveBeenCalledTimes(2);
    expect(mocks.checkedBatches).toEqual([]);
  });
});
