/** Runs this service's migrations and exits. Used by `npm start`, tests, compose and the Kubernetes migration Job. */
import { readMigrationConfig } from '@platform/config';
import { createLogger } from '@platform/logger';
import { runMigrations } from '@platform/persistence';
import { payoutsDataSource, SERVICE_NAME } from './persistence/data-source';

const config = readMigrationConfig();
const logger = createLogger(`${SERVICE_NAME}-migrate`, config.LOG_LEVEL);
runMigrations(payoutsDataSource(config.DATABASE_URL), logger).catch((error) => {
  logger.error('migration failed', { error });
  process.exit(1);
});
