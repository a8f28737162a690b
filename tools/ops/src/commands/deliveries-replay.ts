/**
 * `deliveries replay`: sends webhook deliveries again, each keeping its delivery
 * id (X-Service-Delivery) and getting a fresh round of 7 attempts.
 *   --delivery ID                                    one delivery
 *   --partner ID --since ISO --until ISO [--dead-only] [--limit N]
 *                                                    a partner's deliveries created in [since, until)
 */
import { FlagReader, FlagValues } from '../flags';
import { defineCommand, switchFlag, valueFlag } from './command';

/** webhook_delivery.v1 ReplayDeliveriesRequest bounds. */
const RANGE_LIMIT_MAX = 1_000;
const RANGE_LIMIT_DEFAULT = 500;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

export type DeliveriesReplayInput =
  | { kind: 'one'; deliveryId: string }
  | { kind: 'range'; partnerId: string; since: string; until: string; deadOnly: boolean; limit: number };

export type DeliveriesReplayResult =
  { deliveryId: string; status: string } | { partnerId: string; replayed: number; remaining: number };

function isoFlag(flags: FlagReader, values: FlagValues, flag: string): string {
  const value = values[flag];
  if (typeof value !== 'string') {
    flags.refuse(flag, 'required with --partner');
    return '';
  }
  if (!ISO_UTC.test(value) || Number.isNaN(Date.parse(value)))
    flags.refuse(flag, 'an ISO 8601 UTC time like 2026-01-31T00:00:00Z');
  return value;
}

export function parseDeliveriesReplay(values: FlagValues): DeliveriesReplayInput {
  const flags = new FlagReader(values);
  if (typeof values.delivery === 'string' || values.partner === undefined) {
    const deliveryId = flags.uuid('delivery', true);
    if (values.partner !== undefined) flags.refuse('partner', 'not with --delivery');
    flags.done();
    return { kind: 'one', deliveryId };
  }
  const input: DeliveriesReplayInput = {
    kind: 'range',
    partnerId: flags.uuid('partner', true),
    since: isoFlag(flags, values, 'since'),
    until: isoFlag(flags, values, 'until'),
    deadOnly: flags.flag('dead-only'),
    limit: flags.integer('limit', { min: 1, max: RANGE_LIMIT_MAX }, RANGE_LIMIT_DEFAULT),
  };
  flags.done();
  return input;
}

export const deliveriesReplay = defineCommand<DeliveriesReplayInput, DeliveriesReplayResult>({
  name: 'deliveries replay',
  summary:
    "Send webhook deliveries again with the same delivery id: one, or a partner's range (--dead-only: dead ones only).",
  synopsis: `--delivery ID | --partner ID --since ISO --until ISO [--dead-only] [--limit 1..${RANGE_LIMIT_MAX}]`,
  flags: {
    delivery: valueFlag("ID: one delivery's id, a UUID (or give --partner with --since and --until, not both)"),
    partner: valueFlag('ID: the partner whose deliveries to replay, a UUID (with --since and --until)'),
    since: valueFlag(
      'ISO: deliveries created at or after this ISO 8601 UTC time, like 2026-01-31T00:00:00Z (required with --partner)',
    ),
    until: valueFlag('ISO: and before this ISO 8601 UTC time (required with --partner)'),
    'dead-only': switchFlag('only the dead-lettered ones (with --partner)'),
    limit: valueFlag(
      `N: at most this many, an integer from 1 to ${RANGE_LIMIT_MAX} (default ${RANGE_LIMIT_DEFAULT}; with --partner)`,
    ),
  },
  parse: parseDeliveriesReplay,
  async run(input, clients) {
    if (input.kind === 'one') return clients.webhookAdmin().replayDelivery({ deliveryId: input.deliveryId });
    const { kind: _kind, ...request } = input;
    const { replayed, remaining } = await clients.webhookAdmin().replayDeliveries(request);
    return { partnerId: input.partnerId, replayed, remaining };
  },
  describe: (result) =>
    'deliveryId' in result
      ? `Delivery ${result.deliveryId}: ${result.status}.`
      : `Replayed ${result.replayed} deliveries of partner ${result.partnerId}; ${result.remaining} still match (run again to replay them).`,
});
