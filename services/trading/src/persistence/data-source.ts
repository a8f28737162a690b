import { createDataSource, DataSource } from '@platform/persistence';
import { TradingV1Migration1732300000000 } from './migrations/1732300000000-trading-v1';
import { DailyCapMigration1732400000000 } from './migrations/1732400000000-daily-cap';
import { OrdersMigration1732500000000 } from './migrations/1732500000000-orders';
import { PayInOrdersMigration1732600000000 } from './migrations/1732600000000-pay-in-orders';
import { OrdersPartnerListingMigration1732610000000 } from './migrations/1732610000000-orders-partner-listing';
import { CapWindowsMigration1732710000000 } from './migrations/1732710000000-cap-windows';
import { TradingAuditRecordsMigration1795900000000 } from './migrations/1795900000000-trading-audit-records';
import { OrdersTxHashPerPartnerMigration1795917000000 } from './migrations/1795917000000-orders-tx-hash-per-partner';
import { TradingOutboxTraceparentMigration1796000000000 } from './migrations/1796000000000-trading-outbox-traceparent';
import { CapReserveOneStatementMigration1796900000000 } from './migrations/1796900000000-cap-reserve-one-statement';
import { TradingRetentionIndexesMigration1797200000000 } from './migrations/1797200000000-trading-retention-indexes';
import { QuotesWithoutPartnerIndexMigration1797300000000 } from './migrations/1797300000000-quotes-without-partner-index';
import { CapAndQuoteByKeyMigration1797700000000 } from './migrations/1797700000000-cap-and-quote-by-key';
import { PlaceOrderGenericPlansMigration1798100000000 } from './migrations/1798100000000-place-order-generic-plans';
import { PlaceOrderCapLastMigration1799200000000 } from './migrations/1799200000000-place-order-cap-last';

export const SERVICE_NAME = 'trading';

export function tradingDataSource(url: string): DataSource {
  return createDataSource({
    url,
    applicationName: SERVICE_NAME,
    migrations: [
      TradingV1Migration1732300000000,
      DailyCapMigration1732400000000,
      OrdersMigration1732500000000,
      PayInOrdersMigration1732600000000,
      OrdersPartnerListingMigration1732610000000,
      CapWindowsMigration1732710000000,
      TradingAuditRecordsMigration1795900000000,
      OrdersTxHashPerPartnerMigration1795917000000,
      TradingOutboxTraceparentMigration1796000000000,
      CapReserveOneStatementMigration1796900000000,
      TradingRetentionIndexesMigration1797200000000,
      QuotesWithoutPartnerIndexMigration1797300000000,
      CapAndQuoteByKeyMigration1797700000000,
      PlaceOrderGenericPlansMigration1798100000000,
      PlaceOrderCapLastMigration1799200000000,
    ],
  });
}
