/**
 * Partner action: price a single-use, time-limited quote. In order, each step refusing on its own:
 * request shape (400) → the partner's fee schedule (503 FEE_PRICING_INVALID) →
 * a live rate (503 RATE_UNAVAILABLE) → pricing (400 too small/too large,
 * 422 FEE_EXCEEDS_PROCEEDS) → persisted with its expiry → returned.
 * The fee schedule and the rate are read at the same time (two independent
 * reads, one round trip of waiting); the refusals keep that order. A batch
 * (executeMany) reads its rates once for all its items.
 */
import { randomUUID } from 'node:crypto';
import { AppError, isAppError, validationFailed } from '@platform/errors';
import { Logger, runWithContext } from '@platform/logger';
import type { FeedRate, RateFeed } from '../../adapters/rate-feed/rate-feed';
import type { Clock } from '../../domain/clock';
import { FeeSchedule, RawFeeSchedule, storedFeeSchedule } from '../../domain/fee-schedule';
import { formatQuoteAmounts, priceQuote, quoteRate } from '../../domain/pricing';
import { parseQuoteRequest, QuoteRequest, QuoteRequestInput } from '../../domain/quote-request';
import { quoteExpiresAt } from '../../domain/quote-lifetime';
import { isRateLive } from '../../domain/rate-freshness';
import type { NewQuote, QuotePricedWith } from '../../persistence/quotes.repository';
import { KnownFeeSchedule, KnownFeeSchedules } from './known-fee-schedules';

export type CreateQuoteCommand = QuoteRequestInput;

export interface QuoteView {
  quoteId: string;
  side: 'buy' | 'sell';
  kesAmount: string;
  usdtAmount: string;
  rate: string;
  kesTotalAmount: string;
  fee: { kesAmount: string; percentBps: number; flatKesAmount: string; capKesAmount: string | null };
  /** ISO 8601 UTC with milliseconds; authoritative. */
  expiresAt: string;
  settlementEstimateSeconds: number;
}

/** One item of a batch: the request and the id of the partner request it serves (for the logs). */
export interface QuoteItem {
  command: CreateQuoteCommand;
  requestId: string;
}

/** One item's answer: its quote, or its own refusal (INTERNAL_ERROR when it failed alone). */
export type QuoteOutcome = { quote: QuoteView } | { refusal: AppError };

/** One item's work before its answer: priced, refused, or failed (not a refusal: a bug, the database). */
type ItemWork = { quote: NewQuote } | { refusal: AppError } | { failure: unknown };

/** One item's request after its shape was checked: the request, or its refusal. */
type ParsedItem = { request: QuoteRequest } | { refusal: AppError } | { failure: unknown };

/** An item whose partner's fee schedule an earlier batch read: its index in the batch, its request, that schedule. */
interface KnownItem {
  index: number;
  request: QuoteRequest;
  known: KnownFeeSchedule;
}

/** What pricing reads of a partner: its stored fee schedule and the latest rate the feed gives it. */
interface PartnerReads {
  feeSchedule(partnerId: string): Promise<RawFeeSchedule | null>;
  latestRate(partnerId: string): Promise<FeedRate | null>;
}

/** Refusals and failures as values, never thrown: one item's never reaches its neighbours. */
function outcomeOf<T extends object>(work: () => T): T | { refusal: AppError } | { failure: unknown } {
  try {
    return work();
  } catch (error) {
    return isAppError(error) ? { refusal: error } : { failure: error };
  }
}

/** The partners whose requests passed their shape check, each once, in the order they first appear. */
function partnersOf(parsed: readonly ParsedItem[]): string[] {
  return [...new Set(parsed.flatMap((item) => ('request' in item ? [item.request.partnerId] : [])))];
}

/** Runs `work` in the item's own log context, so any line it logs names the item's request and partner. */
function inItemContext<T>(item: QuoteItem, work: () => T): T {
  return runWithContext({ requestId: item.requestId, partnerId: item.command.partnerId }, work);
}

export interface CreateQuoteDependencies {
  profiles: {
    findFeeSchedule(partnerId: string): Promise<RawFeeSchedule | null>;
    findFeeSchedules(partnerIds: readonly string[]): Promise<Map<string, RawFeeSchedule>>;
  };
  quotes: {
    insert(quote: NewQuote): Promise<void>;
    insertMany(quotes: readonly NewQuote[]): Promise<void>;
    insertManyIfScheduleCurrent(quotes: readonly QuotePricedWith[]): Promise<Set<string>>;
  };
  rateFeed: RateFeed;
  clock: Clock;
  logger: Logger;
  quoteLifetimeMs: number;
  rateStalenessLimitMs: number;
  settlementEstimateSeconds: number;
}

export class CreateQuoteUseCase {
  /** `knownSchedules`: the schedules batch reads found, so later batches need not read them (storeWithKnownSchedules). */
  constructor(
    private readonly deps: CreateQuoteDependencies,
    private readonly knownSchedules = new KnownFeeSchedules(),
  ) {}

  async execute(command: CreateQuoteCommand): Promise<QuoteView> {
    const quote = await this.price(parseQuoteRequest(command), this.directReads());
    await this.deps.quotes.insert(quote);
    return this.view(quote);
  }

  /**
   * Many requests together (the gateway's coalesced quotes): each priced exactly as
   * execute prices it, in its own log context, and refused on its own. More than
   * `itemsMax` are refused whole. An item that fails with something that is not a
   * refusal (a bug, the batch's reads, its own insert) is answered INTERNAL_ERROR alone,
   * logged under its request; its neighbours keep their quotes and refusals. Only
   * when every item failed so (the database down for all) does the call fail, with
   * the first failure, as a single call would have. The batch is priced at one
   * moment, as its items arrived together: the rates of all its partners are one read,
   * made once every item's shape is checked, and every item is priced from that same
   * read, whichever path stores it (so an outage of the feed costs one wait a batch). At the
   * same time as that read, the fee schedules of the partners no earlier batch read are
   * one more read; their items are priced and stored in one insert (storeAll) while
   * the items of partners whose schedule is known are priced with it and stored by the
   * insert that checks it is still the stored one (storeWithKnownSchedules). A batch thus
   * waits for two round trips in sequence, as when it read everything afresh. What the
   * checked insert does not store (a schedule changed since, a refusal, a failure) is
   * answered afterwards by the ordinary path, as soon as the checked insert is done: its
   * partners' schedules read afresh, then one more insert. A read that fails fails the
   * items that needed it (INTERNAL_ERROR), never those already refused.
   */
  async executeMany(items: readonly QuoteItem[], itemsMax: number): Promise<QuoteOutcome[]> {
    if (items.length > itemsMax) throw validationFailed(['items']);
    const parsed = items.map((item): ParsedItem => outcomeOf(() => ({ request: parseQuoteRequest(item.command) })));
    const partners = partnersOf(parsed);
    const rates = partners.length > 0 ? this.ratesOf(partners) : Promise.resolve(new Map<string, FeedRate | null>());
    const known = this.knownItems(parsed);
    const isKnown = new Set(known.map(({ index }) => index));
    // The known items' leftovers follow the checked insert alone, not the other partners' insert too.
    const knownAnswered = this.storeWithKnownSchedules(known, rates).then(async (storedKnown) => ({
      storedKnown,
      afresh: await this.priceAndStore(items, parsed, (index) => isKnown.has(index) && !storedKnown.has(index), rates),
    }));
    const [{ storedKnown, afresh }, others] = await Promise.all([
      knownAnswered,
      this.priceAndStore(items, parsed, (index) => !isKnown.has(index), rates),
    ]);
    const outcomes = parsed.map((done, index): QuoteOutcome | { failure: unknown } => {
      if (!('request' in done)) return done;
      const quote = storedKnown.get(index);
      if (quote) return this.viewOrFailure(quote);
      // Every item whose shape passed takes exactly one of the paths above; should a bug leave one out,
      // that item alone fails (INTERNAL_ERROR, logged under its request), not its neighbours.
      return others.get(index) ?? afresh.get(index) ?? { failure: new Error(`quote item ${index} left unanswered`) };
    });
    const failures = outcomes.flatMap((outcome) => ('failure' in outcome ? [outcome.failure] : []));
    if (items.length > 0 && failures.length === items.length) throw failures[0];
    return outcomes.map((outcome, index) => ('failure' in outcome ? this.failed(items, outcome, index) : outcome));
  }

  /** The batch's one read of its partners' rates, started now; a failure surfaces where it is awaited. */
  private ratesOf(partnerIds: readonly string[]): Promise<Map<string, FeedRate | null>> {
    // Started from inside an async function, so a read that throws before it returns a promise still
    // becomes a rejection its items are answered from, as every other read failure is.
    const rates = (async () => this.deps.rateFeed.latestFor(partnerIds))();
    // Every path awaits it; this only keeps a rejection from counting as unhandled before they do.
    rates.catch(() => undefined);
    return rates;
  }

  /**
   * The items of `parsed` that `selected` picks and whose shape passed, priced with their partners'
   * schedules (read once for all of them) and `rates`, the priced ones stored by one insert
   * (storeAll). Answers each of those items by its index: its quote, refusal or failure.
   */
  private async priceAndStore(
    items: readonly QuoteItem[],
    parsed: readonly ParsedItem[],
    selected: (index: number) => boolean,
    rates: Promise<Map<string, FeedRate | null>>,
  ): Promise<Map<number, QuoteOutcome | { failure: unknown }>> {
    const mine = parsed.flatMap((done, index) => ('request' in done && selected(index) ? [index] : []));
    if (mine.length === 0) return new Map();
    const reads = this.batchReads(partnersOf(mine.map((index) => parsed[index])), rates);
    const work = await Promise.all(
      mine.map((index) => {
        const done = parsed[index] as { request: QuoteRequest };
        return inItemContext(items[index], () => this.priceItem(done.request, reads));
      }),
    );
    const unstored = await this.storeAll(work.flatMap((done) => ('quote' in done ? [done.quote] : [])));
    return new Map(
      work.map((done, at): [number, QuoteOutcome | { failure: unknown }] => {
        if (!('quote' in done)) return [mine[at], done];
        if (unstored.has(done.quote)) return [mine[at], { failure: unstored.get(done.quote) }];
        return [mine[at], this.viewOrFailure(done.quote)];
      }),
    );
  }

  private viewOrFailure(quote: NewQuote): { quote: QuoteView } | { failure: unknown } {
    try {
      return { quote: this.view(quote) };
    } catch (error) {
      return { failure: error };
    }
  }

  /** A failed item's answer: INTERNAL_ERROR, its failure logged under its request. */
  private failed(items: readonly QuoteItem[], outcome: { failure: unknown }, index: number): QuoteOutcome {
    inItemContext(items[index], () =>
      this.deps.logger.error('quote failed; this item answered INTERNAL_ERROR', { error: outcome.failure }),
    );
    return { refusal: new AppError('INTERNAL_ERROR') };
  }

  /** An item priced, or its refusal, or its failure (anything that is not a refusal), never thrown. */
  private async priceItem(request: QuoteRequest, reads: PartnerReads): Promise<ItemWork> {
    try {
      return { quote: await this.price(request, reads) };
    } catch (error) {
      return isAppError(error) ? { refusal: error } : { failure: error };
    }
  }

  /**
   * One insert for all; if it fails, each alone, so one bad row cannot fail its
   * neighbours. Answers the quotes left unstored, each with its error.
   */
  private async storeAll(quotes: readonly NewQuote[]): Promise<Map<NewQuote, unknown>> {
    if (quotes.length === 0) return new Map();
    try {
      await this.deps.quotes.insertMany(quotes);
      return new Map();
    } catch (batchError) {
      if (quotes.length === 1) return new Map([[quotes[0], batchError]]);
      this.deps.logger.warn('quotes insert failed; inserting each alone', { quotes: quotes.length, error: batchError });
    }
    const inserted = await Promise.allSettled(quotes.map((quote) => this.deps.quotes.insert(quote)));
    return new Map(
      inserted.flatMap((result, index) => (result.status === 'rejected' ? [[quotes[index], result.reason]] : [])),
    );
  }

  /** The items whose shape passed and whose partner's fee schedule an earlier batch read, with that schedule. */
  private knownItems(parsed: readonly ParsedItem[]): KnownItem[] {
    return parsed.flatMap((done, index) => {
      const known = 'request' in done ? this.knownSchedules.get(done.request.partnerId) : undefined;
      return known && 'request' in done ? [{ index, request: done.request, known }] : [];
    });
  }

  /**
   * The `known` items priced with their known schedules and the batch's `rates`, stored by one insert
   * that stores a quote only if its partner's stored schedule is still the one it was priced with: the
   * items of known partners need no read of their schedules. Answers the quotes stored, by item. What
   * it does not store (a schedule changed since, no live rate, any refusal, any failure) is left to the
   * ordinary path, which reads the schedules afresh, prices from the same rates and answers it exactly as
   * if this had not run; so this logs nothing for an item, and a schedule found changed is forgotten.
   */
  private async storeWithKnownSchedules(
    known: readonly KnownItem[],
    rates: Promise<Map<string, FeedRate | null>>,
  ): Promise<Map<number, NewQuote>> {
    if (known.length === 0) return new Map();
    let ratesRead: Map<string, FeedRate | null>;
    try {
      ratesRead = await rates;
    } catch {
      return new Map(); // the ordinary path answers the same failure item by item, and logs it there
    }
    try {
      const priced = known.flatMap(({ index, request, known: schedule }) => {
        const quote = this.pricedIfAccepted(request, schedule.schedule, ratesRead.get(request.partnerId) ?? null);
        return quote ? [{ index, quote, schedule: schedule.raw }] : [];
      });
      if (priced.length === 0) return new Map();
      const stored = await this.deps.quotes.insertManyIfScheduleCurrent(priced);
      for (const { quote } of priced) if (!stored.has(quote.quoteId)) this.knownSchedules.forget(quote.partnerId);
      return new Map(priced.flatMap(({ index, quote }) => (stored.has(quote.quoteId) ? [[index, quote]] : [])));
    } catch (error) {
      // The ordinary path meets the same failure if it lasts, and answers it item by item.
      this.deps.logger.warn('quotes from known fee schedules failed; reading afresh', { quotes: known.length, error });
      return new Map();
    }
  }

  /** The quote priced from a known (checked) `schedule` and `rate`, or null wherever `price` would refuse or fail (silently: see above). */
  private pricedIfAccepted(request: QuoteRequest, schedule: FeeSchedule, rate: FeedRate | null): NewQuote | null {
    if (rate === null || !isRateLive(rate.observedAt, this.deps.clock.now(), this.deps.rateStalenessLimitMs))
      return null;
    try {
      return this.quoteFrom(request, schedule, rate);
    } catch {
      return null;
    }
  }

  /** One partner's reads, each its own statement (a single quote). */
  private directReads(): PartnerReads {
    return {
      feeSchedule: (partnerId) => this.deps.profiles.findFeeSchedule(partnerId),
      latestRate: (partnerId) => this.deps.rateFeed.latest(partnerId),
    };
  }

  /**
   * A batch's reads: every partner's fee schedule in one read, started at once, and the batch's one
   * read of rates (ratesOf); each item then takes its partner's. Every partner named here is asked for
   * by at least one item, so a read that fails is always awaited, never left unhandled.
   */
  private batchReads(partnerIds: readonly string[], rates: Promise<Map<string, FeedRate | null>>): PartnerReads {
    // Started from inside an async function, so a read that throws before it returns a promise
    // still becomes a rejection its items are answered from, as every other read failure is.
    const schedules = (async () =>
      this.rememberSchedules(partnerIds, await this.deps.profiles.findFeeSchedules(partnerIds)))();
    return {
      feeSchedule: async (partnerId) => (await schedules).get(partnerId) ?? null,
      latestRate: async (partnerId) => (await rates).get(partnerId) ?? null,
    };
  }

  /** The schedules just read, kept for later batches where they price; the others forgotten. */
  private rememberSchedules(
    partnerIds: readonly string[],
    found: Map<string, RawFeeSchedule>,
  ): Map<string, RawFeeSchedule> {
    for (const partnerId of partnerIds) {
      const raw = found.get(partnerId);
      const checked = raw ? storedFeeSchedule(raw) : null;
      if (raw && checked && 'schedule' in checked)
        this.knownSchedules.remember(partnerId, { raw, schedule: checked.schedule });
      else this.knownSchedules.forget(partnerId);
    }
    return found;
  }

  /** Every step after the shape check and before the insert: fee schedule, live rate, pricing, expiry. */
  private async price(request: QuoteRequest, reads: PartnerReads): Promise<NewQuote> {
    const [storedSchedule, latestRate] = await Promise.all([
      reads.feeSchedule(request.partnerId),
      reads.latestRate(request.partnerId),
    ]);
    const schedule = this.feeSchedule(request.partnerId, storedSchedule);
    const feedRate = this.liveRate(latestRate);
    return this.quoteFrom(request, schedule, feedRate);
  }

  /** Pricing and expiry, from a schedule and a rate already judged. */
  private quoteFrom(request: QuoteRequest, schedule: FeeSchedule, feedRate: FeedRate): NewQuote {
    const priced = priceQuote(request.side, request.given, quoteRate(request.side, feedRate), schedule);
    const createdAt = this.deps.clock.now();
    const quote: NewQuote = {
      quoteId: randomUUID(),
      partnerId: request.partnerId,
      pricedBy: request.given.currency,
      priced,
      fee: schedule,
      amounts: formatQuoteAmounts(priced, schedule),
      rateObservedAt: feedRate.observedAt,
      createdAt,
      expiresAt: quoteExpiresAt(createdAt, this.deps.quoteLifetimeMs),
    };
    return quote;
  }

  private feeSchedule(partnerId: string, stored: RawFeeSchedule | null): FeeSchedule {
    const result = storedFeeSchedule(stored);
    if ('refusal' in result) {
      // The service's fault, not the partner's: loud, so an operator fixes the profile.
      this.deps.logger.error('stored fee schedule cannot be applied; refusing to quote', {
        partnerId,
        problems: result.problems,
      });
      throw result.refusal;
    }
    return result.schedule;
  }

  private liveRate(rate: FeedRate | null): FeedRate {
    if (rate === null || !isRateLive(rate.observedAt, this.deps.clock.now(), this.deps.rateStalenessLimitMs)) {
      this.deps.logger.warn('no live rate; refusing to quote', { observedAt: rate?.observedAt.toISOString() ?? null });
      throw new AppError('RATE_UNAVAILABLE');
    }
    return rate;
  }

  private view(quote: NewQuote): QuoteView {
    const { amounts } = quote;
    return {
      quoteId: quote.quoteId,
      side: quote.priced.side,
      kesAmount: amounts.kesAmount,
      usdtAmount: amounts.usdtAmount,
      rate: amounts.rate,
      kesTotalAmount: amounts.kesTotalAmount,
      fee: {
        kesAmount: amounts.feeKes,
        percentBps: quote.fee.percentBps,
        flatKesAmount: amounts.feeFlatKes,
        capKesAmount: amounts.feeCapKes,
      },
      expiresAt: quote.expiresAt.toISOString(),
      settlementEstimateSeconds: this.deps.settlementEstimateSeconds,
    };
  }
}
