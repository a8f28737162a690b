import { formatDecimal, RATE_SCALE } from '@platform/money';
import type { SandboxRateControl } from '../../adapters/rate-feed/rate-feed';
import { parseSandboxRatePin } from '../../domain/sandbox-rate';

export interface SetSandboxRateCommand {
  partnerId: string;
  bid: string;
  ask: string;
  halted: boolean;
}

export interface SandboxRateView {
  bid: string;
  ask: string;
  halted: boolean;
  /** ISO 8601 UTC with milliseconds. */
  observedAt: string;
}

/**
 * Sandbox helper: pins the calling partner's rate, optionally halted so it
 * goes stale. Only constructed when the sandbox feed runs (sandbox mode,
 * RATE_FEED=sandbox); otherwise the RPC answers NOT_FOUND, like any route
 * that does not exist.
 */
export class SetSandboxRateUseCase {
  constructor(private readonly control: SandboxRateControl) {}

  async execute(command: SetSandboxRateCommand): Promise<SandboxRateView> {
    const pin = parseSandboxRatePin(command);
    const rate = await this.control.pin(pin);
    return {
      bid: formatDecimal(rate.bid, RATE_SCALE),
      ask: formatDecimal(rate.ask, RATE_SCALE),
      halted: pin.halted,
      observedAt: rate.observedAt.toISOString(),
    };
  }
}
