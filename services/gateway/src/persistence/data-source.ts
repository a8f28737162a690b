import { createDataSource, DataSource } from '@platform/persistence';
import { GatewayV1Migration1732180000000 } from './migrations/1732180000000-gateway-v1';

export const SERVICE_NAME = 'gateway';

export function gatewayDataSource(url: string): DataSource {
  return createDataSource({
    url,
    applicationName: SERVICE_NAME,
    migrations: [GatewayV1Migration1732180000000],
  });
}
