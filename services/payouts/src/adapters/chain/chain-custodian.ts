/**
 * The chain custodian that sends USDT on TRON from the service's custody.
 * Sending is idempotent on `reference` (our send id): a send repeated after a
 * crash never goes out twice; the outcome is then read with `status`.
 */
export interface ChainSendRequest {
  reference: string;
  toAddress: string;
  usdtAmount: string;
}

export type ChainSendAnswer = { outcome: 'accepted' } | { outcome: 'rejected'; failureReason: string };
export type ChainSendStatus =
  { status: 'pending' } | { status: 'confirmed' } | { status: 'failed'; failureReason: string };

export interface ChainCustodian {
  send(request: ChainSendRequest): Promise<ChainSendAnswer>;
  status(request: { reference: string; submittedAt: Date }): Promise<ChainSendStatus>;
}
