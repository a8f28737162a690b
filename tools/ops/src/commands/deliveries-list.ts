/** `deliveries list`: a partner's webhook deliveries, newest first; `--dead` for the dead-lettered ones only. */
import type { webhookDelivery } from '@platform/proto';
import { FlagReader, FlagValues } from '../flags';
import { defineCommand, PARTNER_FLAG, switchFlag, valueFlag } from './command';

/** webhook_delivery.v1 ListDeliveriesRequest bounds. */
const LIMIT_MAX = 500;
const LIMIT_DEFAULT = 100;

export interface DeliveriesListInput {
  partnerId: string;
  deadOnly: boolean;
  limit: number;
}

export interface DeliveriesListResult {
  deliveries: webhookDelivery.Delivery[];
}

export function parseDeliveriesList(values: FlagValues): DeliveriesListInput {
  const flags = new FlagReader(values);
  const input = {
    partnerId: flags.uuid('partner', true),
    deadOnly: flags.flag('dead'),
    limit: flags.integer('limit', { min: 1, max: LIMIT_MAX }, LIMIT_DEFAULT),
  };
  flags.done();
  return input;
}

function describeDelivery(delivery: webhookDelivery.Delivery): string {
  const last = delivery.lastStatusCode ?? delivery.lastErrorClass ?? '-';
  const next = delivery.nextAttemptAt ? `  next ${delivery.nextAttemptAt}` : '';
  return `  ${delivery.deliveryId}  ${delivery.status.padEnd(9)} ${delivery.eventType.padEnd(22)} attempts ${delivery.attemptCount}  last ${last}  created ${delivery.createdAt}${next}`;
}

export const deliveriesList = defineCommand<DeliveriesListInput, DeliveriesListResult>({
  name: 'deliveries list',
  summary: "List a partner's webhook deliveries (--dead: dead-lettered only).",
  synopsis: `--partner ID [--dead] [--limit 1..${LIMIT_MAX}]`,
  flags: {
    partner: PARTNER_FLAG,
    dead: switchFlag('only the dead-lettered deliveries'),
    limit: valueFlag(
      `N: at most this many, newest first, an integer from 1 to ${LIMIT_MAX} (default ${LIMIT_DEFAULT})`,
    ),
  },
  parse: parseDeliveriesList,
  async run(input, clients) {
    const { deliveries } = await clients.webhookAdmin().listDeliveries(input);
    return { deliveries };
  },
  describe: (result) =>
    result.deliveries.length === 0
      ? 'No deliveries.'
      : [`${result.deliveries.length} deliveries:`, ...result.deliveries.map(describeDelivery)].join('\n'),
});
