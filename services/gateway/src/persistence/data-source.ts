import { createDataSource, DataSource } from '@platform/persistence';
import { GatewayV1Migration1732180000000 } from './migrations/1732180000000-gateway-v1';
import { GatewaySealingKeyIdsMigration1795600000000 } from './migrations/1795600000000-gateway-sealing-key-ids';
import { GatewayAuditRecordsMigration1795900000000 } from './migrations/1795900000000-gateway-audit-records';
import { GatewayWebhooksScopeMigration1796400000000 } from './migrations/1796400000000-gateway-webhooks-scope';

export const SERVICE_NAME = 'gateway';

export function gatewayDataSource(url: string): DataSource {
  return createDataSource({
    url,
    applicationName: SERVICE_NAME,
    migrations: [
      GatewayV1Migration1732180000000,
      GatewaySealingKeyIdsMigration1795600000000,
      GatewayAuditRecordsMigration1795900000000,
      GatewayWebhooksScopeMigration1796400000000,
    ],
  });
}
