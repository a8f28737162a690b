/**
 * Partner action: price a single-use, time-limited quote. In order, each step refusing on its own:
 * request shape (400) → the partner's fee schedule (503 FEE_PRICING_INVALID) →
 * a live rate (503 RATE_UNAVAILABLE) → pricing (400 too small/too large,
 * 422 FEE_EXCEEDS_PROCEEDS) → persisted with its expiry → returned.
 * The fee schedule and the rate are read at the same time (two independent
 * reads, one round trip of waiting); the refusals keep that order.
 */
import { randomUUID } from 'node:crypto';
import { AppError, isAppError, validationFailed } from '@platform/errors';
import { Logger, runWithContext } from '@platform/logger';
import { formatAmount } from '@platform/money';
import type { FeedRate, RateFeed } from '../../adapters/rate-feed/rate-feed';
import type { Clock } from '../../domain/clock';
import { FeeSchedule, RawFeeSchedule, storedFeeSchedule } from '../../domain/fee-schedule';
import { formatPricedQuote, priceQuote, quoteRate } from '../../domain/pricing';
import { parseQuoteRequest, QuoteRequest, QuoteRequestInput } from '../../domain/quote-request';
import { quoteExpiresAt } from '../../domain/quote-lifetime';
import { isRateLive } from '../../domain/rate-freshness';
import type { NewQuote } from '../../persistence/quotes.repository';

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
  quotes: { insert(quote: NewQuote): Promise<void>; insertMany(quotes: readonly NewQuote[]): Promise<void> };
  rateFeed: RateFeed;
  clock: Clock;
  logger: Logger;
  quoteLifetimeMs: number;
  rateStalenessLimitMs: number;
  settlementEstimateSeconds: number;
}

export class CreateQuoteUseCase {
  constructor(private readonly deps: CreateQuoteDependencies) {}

  async execute(command: CreateQuoteCommand): Promise<QuoteView> {
    const quote = await this.price(parseQuoteRequest(command), this.directReads());
    await this.deps.quotes.insert(quote);
    return this.view(quote);
  }

  /**
   * Many requests together (the gateway's coalesced quotes): each priced exactly as
   * execute prices it, in its own log context, and refused on its own; the priced
   * ones stored in one insert and one commit (storeAll). More than `itemsMax` are
   * refused whole. An item that fails with something that is not a refusal (a bug,
   * the batch's reads, its own insert) is answered INTERNAL_ERROR alone,
   * logged under its request; its neighbours keep their quotes and refusals. Only
   * when every item failed so (the database down for all) does the call fail, with
   * the first failure, as a single call would have. The batch is priced at one
   * moment, as its items arrived together: the fee schedules of all its partners are
   * one read and their rates one more (two statements a batch, not two a partner),
   * made once every item's shape is checked; a read that fails fails the items that
   * needed it (INTERNAL_ERROR), never those already refused.
   */
  async executeMany(items: readonly QuoteItem[], itemsMax: number): Promise<QuoteOutcome[]> {
    if (items.length > itemsMax) throw validationFailed(['items']);
    const parsed = items.map((item): ParsedItem => outcomeOf(() => ({ request: parseQuoteRequest(item.command) })));
    const reads = this.batchReads(partnersOf(parsed));
    const work = await Promise.all(
      parsed.map((done, index) =>
        'request' in done ? inItemContext(items[index], () => this.priceItem(done.request, reads)) : done,
      ),
    );
    const unstored = await this.storeAll(work.flatMap((done) => ('quote' in done ? [done.quote] : [])));
    const outcomes = work.map((done): QuoteOutcome | { failure: unknown } => {
      if ('refusal' in done || 'failure' in done) return done;
      if (unstored.has(done.quote)) return { failure: unstored.get(done.quote) };
      try {
        return { quote: this.view(done.quote) };
      } catch (error) {
        return { failure: error };
      }
    });
    const failures = outcomes.flatMap((outcome) => ('failure' in outcome ? [outcome.failure] : []));
    if (failures.length === items.length) throw failures[0];
    return outcomes.map((outcome, index) => {
      if (!('failure' in outcome)) return outcome;
      inItemContext(items[index], () =>
        this.deps.logger.error('quote failed; this item answered INTERNAL_ERROR', { error: outcome.failure }),
      );
      return { refusal: new AppError('INTERNAL_ERROR') };
    });
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

  /** One partner's reads, each its own statement (a single quote). */
  private directReads(): PartnerReads {
    return {
      feeSchedule: (partnerId) => this.deps.profiles.findFeeSchedule(partnerId),
      latestRate: (partnerId) => this.deps.rateFeed.latest(partnerId),
    };
  }

  /**
   * A batch's reads: every partner's fee schedule in one read and their rates in one more, started at
   * once; each item then takes its partner's. Every partner named here is asked for by at least one
   * item (partnersOf), so a read that fails is always awaited, never left unhandled.
   */
  private batchReads(partnerIds: readonly string[]): PartnerReads {
    if (partnerIds.length === 0) return this.directReads();
    // Started from inside an async function each, so a read that throws before it returns a promise
    // still becomes a rejection its items are answered from, as every other read failure is.
    const schedules = (async () => this.deps.profiles.findFeeSchedules(partnerIds))();
    const rates = (async () => this.deps.rateFeed.latestFor(partnerIds))();
    return {
      feeSchedule: async (partnerId) => (await schedules).get(partnerId) ?? null,
      latestRate: async (partnerId) => (await rates).get(partnerId) ?? null,
    };
  }

  /** Every step after the shape check and before the insert: fee schedule, live rate, pricing, expiry. */
  private async price(request: QuoteRequest, reads: PartnerReads): Promise<NewQuote> {
    const [storedSchedule, latestRate] = await Promise.all([
      reads.feeSchedule(request.partnerId),
      reads.latestRate(request.partnerId),
    ]);
    const schedule = this.feeSchedule(request.partnerId, storedSchedule);
    const feedRate = this.liveRate(latestRate);
    const priced = priceQuote(request.side, request.given, quoteRate(request.side, feedRate), schedule);
    const createdAt = this.deps.clock.now();
    const quote: NewQuote = {
      quoteId: randomUUID(),
      partnerId: request.partnerId,
      pricedBy: request.given.currency,
      priced,
      fee: schedule,
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
    const amounts = formatPricedQuote(quote.priced);
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
        flatKesAmount: formatAmount(quote.fee.flatKes, 'KES'),
        capKesAmount: quote.fee.capKes === null ? null : formatAmount(quote.fee.capKes, 'KES'),
      },
      expiresAt: quote.expiresAt.toISOString(),
      settlementEstimateSeconds: this.deps.settlementEstimateSeconds,
    };
  }
}
