import { createDataSource, DataSource } from '@platform/persistence';
import { WebhookDeliveryV1Migration1732400000000 } from './migrations/1732400000000-webhook-delivery-v1';

export const SERVICE_NAME = 'webhook-delivery';

export function webhookDeliveryDataSource(url: string): DataSource {
  return createDataSource({
    url,
    applicationName: SERVICE_NAME,
    migrations: [WebhookDeliveryV1Migration1732400000000],
  });
}
