/**
 * Sends a wallet approval code to an administrator through the notifier
 * service over gRPC. The idempotency key is derived from the code's issuance
 * id, so a retried call never sends a second message, and a fresh code (a new
 * issuance) always does.
 */
import { AppError } from '@platform/errors';
import type { PromiseClient } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import { notifier } from '@platform/proto';

export interface ApprovalCodeMessage {
  codeId: string;
  partnerId: string;
  walletId: string;
  recipient: string;
  code: string;
  chain: string;
  asset: string;
  address: string;
  expiresAt: Date;
}

export interface ApprovalCodeSender {
  /** Resolves once the notifier has taken the message; rejects with SERVICE_UNAVAILABLE when it cannot be reached. */
  send(message: ApprovalCodeMessage): Promise<void>;
}

export function approvalIdempotencyKey(codeId: string): string {
  return `wallet-approval:${codeId}`;
}

export class GrpcApprovalCodeSender implements ApprovalCodeSender {
  constructor(
    private readonly client: PromiseClient<typeof notifier.NotifierService>,
    private readonly logger: Logger,
  ) {}

  async send(message: ApprovalCodeMessage): Promise<void> {
    try {
      await this.client.sendMessage({
        idempotencyKey: approvalIdempotencyKey(message.codeId),
        partnerId: message.partnerId,
        kind: 'wallet_approval',
        recipient: message.recipient,
        subjectType: 'wallet',
        subjectId: message.walletId,
        code: message.code,
        variables: {
          chain: message.chain,
          asset: message.asset,
          address: message.address,
          expiresAt: message.expiresAt.toISOString(),
        },
      });
    } catch (error) {
      const appError = error instanceof AppError ? error : new AppError('INTERNAL_ERROR');
      if (appError.code === 'SERVICE_UNAVAILABLE') throw appError;
      // Any other refusal is a contract mismatch between the two services: a bug, not the partner's doing.
      this.logger.error('notifier refused a wallet approval message', {
        codeId: message.codeId,
        refusal: appError.code,
      });
      throw new AppError('INTERNAL_ERROR');
    }
  }
}
