/**
 * Sandbox chain custodian: a send whose USDT amount ends in `13` at the sixth
 * decimal (e.g. `5.000013`) is refused (`USDT_SEND_CHAIN_REJECTED`); any other
 * is accepted and confirmed `confirmDelayMs` (already scaled by
 * SANDBOX_TIME_SCALE) after submission. Stateless, like the sandbox bank: the
 * submission time is ours, stored with the send.
 */
import type { ChainCustodian, ChainSendAnswer, ChainSendRequest, ChainSendStatus } from './chain-custodian';

export const SANDBOX_CHAIN_REJECTED_SUFFIX = '13';

export class SandboxChainCustodian implements ChainCustodian {
  constructor(
    private readonly confirmDelayMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async send(request: ChainSendRequest): Promise<ChainSendAnswer> {
    if (request.usdtAmount.endsWith(SANDBOX_CHAIN_REJECTED_SUFFIX))
      return { outcome: 'rejected', failureReason: 'USDT_SEND_CHAIN_REJECTED' };
    return { outcome: 'accepted' };
  }

  async status(request: { submittedAt: Date }): Promise<ChainSendStatus> {
    return this.now().getTime() >= request.submittedAt.getTime() + this.confirmDelayMs
      ? { status: 'confirmed' }
      : { status: 'pending' };
  }
}

/** Production until a custodian is integrated: every send fails, so nothing is reported sent that was not. */
export class UnconfiguredChainCustodian implements ChainCustodian {
  async send(): Promise<ChainSendAnswer> {
    return { outcome: 'rejected', failureReason: 'USDT_SEND_CUSTODY_NOT_CONFIGURED' };
  }

  async status(): Promise<ChainSendStatus> {
    return { status: 'failed', failureReason: 'USDT_SEND_CUSTODY_NOT_CONFIGURED' };
  }
}
