import { AppError } from '@platform/errors';
import type { AsyncImplementation } from '@platform/grpc';
import { notifier } from '@platform/proto';
import type { ListSandboxOutboxUseCase } from '../usecases/list-sandbox-outbox/list-sandbox-outbox.usecase';
import type { SendMessageUseCase } from '../usecases/send-message/send-message.usecase';

/** Translates gRPC messages to commands; no decisions here. */
export function notifierHandlers(deps: {
  sendMessage: SendMessageUseCase;
}): AsyncImplementation<typeof notifier.NotifierService> {
  return {
    async sendMessage(request) {
      return deps.sendMessage.execute(request);
    },
  };
}

/** Outside sandbox mode there is no use case and every call answers NOT_FOUND, as an absent route would. */
export function notifierSandboxHandlers(deps: {
  listSandboxOutbox: ListSandboxOutboxUseCase | null;
}): AsyncImplementation<typeof notifier.NotifierSandboxService> {
  return {
    async listSandboxOutbox(request) {
      if (!deps.listSandboxOutbox) throw new AppError('NOT_FOUND');
      const entries = await deps.listSandboxOutbox.execute(request);
      return {
        entries: entries.map((entry) => ({
          ...entry,
          code: entry.code ?? undefined,
          subjectId: entry.subjectId ?? '',
        })),
      };
    },
  };
}
