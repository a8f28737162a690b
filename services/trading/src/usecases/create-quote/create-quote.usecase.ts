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
import type { Logger } from '@platform/logger';
import { formatAmount } from '@platform/money';
import type { FeedRate, RateFeed } from '../../adapters/rate-feed/rate-feed';
import type { Clock } from '../../domain/clock';
import { FeeSchedule, RawFeeSchedule, storedFeeSchedule } from '../../domain/fee-schedule';
import { formatPricedQuote, priceQuote, quoteRate } from '../../domain/pricing';
import { parseQuoteRequest, QuoteRequestInput } from '../../domain/quote-request';
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

/** One item of a batch: its quote, or its own refusal. */
export type QuoteOutcome = { quote: QuoteView } | { refusal: AppError };

export interface CreateQuoteDependencies {
  profiles: { findFeeSchedule(partnerId: string): Promise<RawFeeSchedule | null> };
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
    const quote = await this.price(command);
    await this.deps.quotes.insert(quote);
    return this.view(quote);
  }

  /**
   * Many requests together (the gateway's coalesced quotes): each priced exactly as
   * execute prices it and refused on its own; the priced ones stored in one insert
   * and one commit (storeAll). More than `itemsMax` are refused whole. A failure that
   * is not a refusal (a bug, the database unreachable) fails the batch, as it would
   * have failed a single call.
   */
  async executeMany(commands: readonly CreateQuoteCommand[], itemsMax: number): Promise<QuoteOutcome[]> {
    if (commands.length > itemsMax) throw validationFailed(['items']);
    const priced = await Promise.allSettled(commands.map((command) => this.price(command)));
    const failure = priced.find((result) => result.status === 'rejected' && !isAppError(result.reason));
    if (failure) throw (failure as PromiseRejectedResult).reason;
    const quotes = priced.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const unstored = await this.storeAll(quotes);
    return priced.map((result) => {
      if (result.status === 'rejected') return { refusal: result.reason as AppError };
      return unstored.has(result.value)
        ? { refusal: new AppError('INTERNAL_ERROR') }
        : { quote: this.view(result.value) };
    });
  }

  /**
   * One insert for all; if it fails, each alone, so one bad row cannot fail its
   * neighbours. Answers the quotes left unstored (each logged); when none could be
   * stored, the batch fails with the first error, as a single call would.
   */
  private async storeAll(quotes: readonly NewQuote[]): Promise<Set<NewQuote>> {
    if (quotes.length === 0) return new Set();
    try {
      await this.deps.quotes.insertMany(quotes);
      return new Set();
    } catch (batchError) {
      if (quotes.length === 1) throw batchError;
      this.deps.logger.warn('quotes insert failed; inserting each alone', { quotes: quotes.length, error: batchError });
    }
    const inserted = await Promise.allSettled(quotes.map((quote) => this.deps.quotes.insert(quote)));
    const failed = inserted.flatMap((result, index) => (result.status === 'rejected' ? [{ index, result }] : []));
    if (failed.length === quotes.length) throw failed[0].result.reason;
    for (const { index, result } of failed)
      this.deps.logger.error('quote insert failed', {
        quoteId: quotes[index].quoteId,
        partnerId: quotes[index].partnerId,
        error: result.reason,
      });
    return new Set(failed.map(({ index }) => quotes[index]));
  }

  /** Every step before the insert: shape, fee schedule, live rate, pricing, expiry. */
  private async price(command: CreateQuoteCommand): Promise<NewQuote> {
    const request = parseQuoteRequest(command);
    const [storedSchedule, latestRate] = await Promise.all([
      this.deps.profiles.findFeeSchedule(request.partnerId),
      this.deps.rateFeed.latest(request.partnerId),
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
