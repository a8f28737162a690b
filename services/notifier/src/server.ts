/** Wires dependencies into a gRPC server. No I/O here beyond what is passed in. */
import { createGrpcServer, GrpcServer, TlsMaterial } from '@platform/grpc';
import type { Logger } from '@platform/logger';
import type { DataSource } from '@platform/persistence';
import { notifier } from '@platform/proto';
import type { MailTransport } from './adapters/transport/mail-transport';
import { notifierHandlers, notifierSandboxHandlers } from './grpc/notifier.handlers';
import { MessagesRepository } from './persistence/messages.repository';
import { ListSandboxOutboxUseCase } from './usecases/list-sandbox-outbox/list-sandbox-outbox.usecase';
import { SendMessageUseCase } from './usecases/send-message/send-message.usecase';
import { NOTIFIER_ACCESS } from './grpc/access';

export interface ServerDependencies {
  dataSource: DataSource;
  logger: Logger;
  /** This service's mutual-TLS material (its identity), shared with its clients. */
  tls: TlsMaterial;
  transport: MailTransport;
}

export function createServer(deps: ServerDependencies): GrpcServer {
  const server = createGrpcServer(deps.logger, deps.tls);
  const messages = new MessagesRepository();
  server.add(
    notifier.NotifierService,
    notifierHandlers({
      sendMessage: new SendMessageUseCase(deps.dataSource, messages, deps.transport, deps.logger),
    }),
    NOTIFIER_ACCESS.NOTIFIER,
  );
  // The outbox exists only where the sandbox transport stored the messages.
  server.add(
    notifier.NotifierSandboxService,
    notifierSandboxHandlers({
      listSandboxOutbox:
        deps.transport.name === 'sandbox' ? new ListSandboxOutboxUseCase(deps.dataSource, messages) : null,
    }),
    NOTIFIER_ACCESS.SANDBOX,
  );
  return server;
}
