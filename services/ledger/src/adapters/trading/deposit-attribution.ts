/**
 * Asks trading whether an inbound USDT deposit belongs to a sell order. Any
 * failure to get an answer (trading down, deadline, open breaker, a refusal)
 * is "unavailable": the deposit is then held for a short window, never
 * credited on a guess.
 */
import { createClient, PromiseClient, TlsMaterial } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import { trading } from '@platform/proto';
import type { DepositDecision } from '../../domain/deposit-plan';
import { isUuid } from '../../domain/ids';

/** Offering is on the deposit's path; it must answer quickly or not at all. */
export const OFFER_DEADLINE_MS = 2_000;

export interface DepositAttribution {
  offer(request: { partnerId: string; txHash: string; usdtAmount: string }): Promise<DepositDecision>;
  close(): void;
}

export class GrpcDepositAttribution implements DepositAttribution {
  private readonly client: PromiseClient<typeof trading.TradingDepositsService>;

  constructor(
    address: string,
    tls: TlsMaterial,
    private readonly logger: Logger,
  ) {
    this.client = createClient(trading.TradingDepositsService, {
      upstream: 'trading',
      tls: tls.client('trading'),
      address,
      logger,
      deadlineMs: OFFER_DEADLINE_MS,
    });
  }

  async offer(request: { partnerId: string; txHash: string; usdtAmount: string }): Promise<DepositDecision> {
    try {
      const answer = await this.client.offerUsdtDeposit(request);
      if (answer.decision === 'matched' && isUuid(answer.orderId))
        return { decision: 'matched', orderId: answer.orderId };
      if (answer.decision === 'hold' && answer.holdUntil && !Number.isNaN(Date.parse(answer.holdUntil)))
        return { decision: 'hold', holdUntil: answer.holdUntil };
      if (answer.decision === 'none') return { decision: 'none' };
      this.logger.error('trading answered a malformed deposit decision; holding the deposit', {
        decision: answer.decision,
      });
      return { decision: 'unavailable' };
    } catch (error) {
      this.logger.warn('trading did not answer a deposit offer; holding the deposit', {
        error: (error as Error).message,
      });
      return { decision: 'unavailable' };
    }
  }

  close(): void {
    this.client.close();
  }
}
