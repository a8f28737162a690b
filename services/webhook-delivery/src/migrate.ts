/** Runs this service's migrations and exits. Used by `npm start`, tests and the Kubernetes migration Job. */
import { createLogger } from '@platform/logger';
import { runMigrations } from '@platform/persistence';
import { readConfig } from './config';
import { SERVICE_NAME, webhookDeliveryDataSource } from './persistence/data-source';

async function migrate(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(`${SERVICE_NAME}-migrate`, config.LOG_LEVEL);
  await runMigrations(webhookDeliveryDataSource(config.DATABASE_URL), logger);
}

migrate().catch((error) => {
  createLogger(`${SERVICE_NAME}-migrate`).error('migration failed', { error });
  process.exit(1);
});
