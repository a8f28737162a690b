import { createDataSource, DataSource } from '@platform/persistence';
import { TradingV1Migration1732300000000 } from './migrations/1732300000000-trading-v1';
import { DailyCapMigration1732400000000 } from './migrations/1732400000000-daily-cap';
import { OrdersMigration1732500000000 } from './migrations/1732500000000-orders';
import { PayInOrdersMigration1732600000000 } from './migrations/1732600000000-pay-in-orders';
import { OrdersTxHashPerPartnerMigration1732710000000 } from './migrations/1732710000000-orders-tx-hash-per-partner';

export const SERVICE_NAME = 'trading';

export function tradingDataSource(url: string): DataSource {
  return createDataSource({
    url,
    applicationName: SERVICE_NAME,
    migrations: [
      TradingV1Migration1732300000000, DailyCapMigration1732400000000, OrdersMigration1732500000000, PayInOrdersMigration1732600000000,
      OrdersTxHashPerPartnerMigration1732710000000,
    ],
  });
}
