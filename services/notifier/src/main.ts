/** Entry point: config → dependencies → server → listen → drain on SIGTERM. */
// First of all: the standard instrumentations patch pg, ioredis and node:http as they are
// required, so they register (when spans are exported) before anything else loads.
import '@platform/tracing/dist/instrument';
import { bootService } from '@platform/grpc';
import type { MailTransport } from './adapters/transport/mail-transport';
import { SandboxTransport } from './adapters/transport/sandbox-transport';
import { SmtpTransport } from './adapters/transport/smtp-transport';
import { Config, readConfig } from './config';
import { notifierDataSource, SERVICE_NAME } from './persistence/data-source';
import { createServer } from './server';

/** Production sends by SMTP (its settings are required there); sandbox mode stores the outbox. */
function createTransport(config: Config): MailTransport {
  if (config.PLATFORM_MODE === 'production' && config.SMTP_URL && config.SMTP_FROM) {
    return new SmtpTransport({ url: config.SMTP_URL, from: config.SMTP_FROM });
  }
  if (config.PLATFORM_MODE === 'production') throw new Error('production mode without SMTP settings');
  return new SandboxTransport();
}

bootService({
  service: SERVICE_NAME,
  readConfig,
  dataSource: notifierDataSource,
  start: async ({ config, logger, tls, dataSource }) => {
    const transport = createTransport(config);
    const server = createServer({ dataSource, logger, tls, transport });
    logger.info('transport selected', { transport: transport.name });
    return {
      server,
      stop: async () => {
        transport.close();
      },
    };
  },
});
