import { createDataSource, DataSource } from '@platform/persistence';
import { MessagesV1Migration1732180000000 } from './migrations/1732180000000-messages-v1';
import { MessagesV2Migration1732190000000 } from './migrations/1732190000000-messages-v2';

export const SERVICE_NAME = 'notifier';

export function notifierDataSource(url: string): DataSource {
  return createDataSource({
    url,
    applicationName: SERVICE_NAME,
    migrations: [MessagesV1Migration1732180000000, MessagesV2Migration1732190000000],
  });
}
