/**
 * `audit list`: the audit trail of operator actions and security-relevant
 * partner actions. Each service that performs them keeps its own append-only
 * trail (ListAuditRecords, callable by `ops` only); this command reads every
 * one for a partner (or the platform-wide records), merges them by time, and
 * prints them oldest first.
 *   --partner ID | --platform   [--since ISO] [--until ISO] [--limit N]
 * Bounded: at most --limit records in all. The first --limit records of the
 * merged trail are always among the first --limit of each service, so each
 * service is read at most that far, a page at a time.
 */
import type { common } from '@platform/proto';
import type { OpsClients } from '../clients';
import { FlagReader, FlagValues } from '../flags';
import { defineCommand, switchFlag, valueFlag } from './command';

export const AUDIT_LIST_LIMIT_MAX = 5_000;
export const AUDIT_LIST_LIMIT_DEFAULT = 1_000;
/** The services' ListAuditRecords page bound (common.v1 ListAuditRecordsRequest). */
export const AUDIT_SERVICE_PAGE_LIMIT_MAX = 500;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

type AuditLister = (request: common.ListAuditRecordsRequest) => Promise<common.ListAuditRecordsResponse>;

/** Every service that keeps an audit trail, and its ListAuditRecords. */
export function auditListers(clients: OpsClients): Array<[service: string, list: AuditLister]> {
  return [
    ['gateway', (request) => clients.partnerAdmin().listAuditRecords(request)],
    ['trading', (request) => clients.tradingOperator().listAuditRecords(request)],
    ['ledger', (request) => clients.ledger().listAuditRecords(request)],
    ['wallet-registry', (request) => clients.walletRegistryAdmin().listAuditRecords(request)],
    ['webhook-delivery', (request) => clients.webhookAdmin().listAuditRecords(request)],
    ['collections', (request) => clients.collectionsAdmin().listAuditRecords(request)],
  ];
}

export interface AuditListInput {
  /** Empty: the platform-wide records (switches, reseals). */
  partnerId: string;
  since: string;
  until: string;
  limit: number;
}

/** One record as printed: fields without a value are left out. */
export interface AuditRecordView {
  occurredAt: string;
  service: string;
  recordId: string;
  action: string;
  partnerId?: string;
  actor: { identity: string; operator?: string; partnerId?: string; credentialKey?: string };
  requestId?: string;
  details: Record<string, string>;
}

export interface AuditListResult {
  records: AuditRecordView[];
  /** More records match than were printed: run again with `--since nextSince` (records at that instant show again). */
  truncated: boolean;
  nextSince?: string;
}

/** What one service answered: its records in order, and whether it holds more past them. */
export interface AuditTrail {
  records: common.AuditRecord[];
  more: boolean;
}

function isoFlag(flags: FlagReader, values: FlagValues, flag: string): string {
  const value = values[flag];
  if (value === undefined) return '';
  if (typeof value !== 'string' || !ISO_UTC.test(value) || Number.isNaN(Date.parse(value))) {
    flags.refuse(flag, 'an ISO 8601 UTC time like 2026-01-31T00:00:00Z');
    return '';
  }
  return value;
}

export function parseAuditList(values: FlagValues): AuditListInput {
  const flags = new FlagReader(values);
  const platform = flags.flag('platform');
  const partnerId = platform ? '' : flags.uuid('partner', true);
  if (platform && values.partner !== undefined) flags.refuse('platform', 'not with --partner');
  const since = isoFlag(flags, values, 'since');
  const until = isoFlag(flags, values, 'until');
  if (since && until && Date.parse(until) <= Date.parse(since)) flags.refuse('until', 'after --since');
  const limit = flags.integer('limit', { min: 1, max: AUDIT_LIST_LIMIT_MAX }, AUDIT_LIST_LIMIT_DEFAULT);
  flags.done();
  return { partnerId, since, until, limit };
}

/** Oldest first; at one instant, by service, then in the service's own order. */
export function compareAuditRecords(a: common.AuditRecord, b: common.AuditRecord): number {
  if (a.occurredAt !== b.occurredAt) return a.occurredAt < b.occurredAt ? -1 : 1;
  if (a.service !== b.service) return a.service < b.service ? -1 : 1;
  const difference = BigInt(a.recordId) - BigInt(b.recordId);
  return difference === 0n ? 0 : difference < 0n ? -1 : 1;
}

/** The first `limit` records of the services' trails merged in time order, and whether more remain. */
export function mergeAuditTrails(
  trails: AuditTrail[],
  limit: number,
): { records: common.AuditRecord[]; truncated: boolean } {
  const merged = trails.flatMap((trail) => trail.records).sort(compareAuditRecords);
  return { records: merged.slice(0, limit), truncated: merged.length > limit || trails.some((trail) => trail.more) };
}

/** Reads one service's trail a page at a time until `wanted` records or its end. */
export async function readAuditTrail(list: AuditLister, input: AuditListInput): Promise<AuditTrail> {
  const records: common.AuditRecord[] = [];
  let cursor = '';
  // At most ceil(limit / page) pages: each page but the last adds a full page.
  while (records.length < input.limit) {
    const limit = Math.min(AUDIT_SERVICE_PAGE_LIMIT_MAX, input.limit - records.length);
    const answer = await list({
      partnerId: input.partnerId,
      since: input.since,
      until: input.until,
      page: { cursor, limit },
    });
    records.push(...answer.records.slice(0, limit));
    cursor = answer.page?.nextCursor ?? '';
    if (cursor === '' || answer.records.length === 0) return { records, more: false };
  }
  return { records, more: true };
}

export function toAuditRecordView(record: common.AuditRecord): AuditRecordView {
  const actor = record.actor;
  return {
    occurredAt: record.occurredAt,
    service: record.service,
    recordId: record.recordId,
    action: record.action,
    ...(record.partnerId ? { partnerId: record.partnerId } : {}),
    actor: {
      identity: actor?.identity ?? '',
      ...(actor?.operator ? { operator: actor.operator } : {}),
      ...(actor?.partnerId ? { partnerId: actor.partnerId } : {}),
      ...(actor?.credentialKey ? { credentialKey: actor.credentialKey } : {}),
    },
    ...(record.requestId ? { requestId: record.requestId } : {}),
    details: record.details,
  };
}

function describeActor(actor: AuditRecordView['actor']): string {
  if (actor.credentialKey) return `${actor.identity} key ${actor.credentialKey}`;
  if (actor.operator) return `${actor.identity} (${actor.operator})`;
  return actor.identity;
}

/** A fixed-width table, one record a line; details as key=value. */
export function describeAuditList(result: AuditListResult): string {
  if (result.records.length === 0) return 'No audit records.';
  const rows = result.records.map((record) => [
    record.occurredAt,
    record.service,
    record.action,
    describeActor(record.actor),
    record.requestId ?? '-',
    Object.entries(record.details)
      .map(([key, value]) => `${key}=${value}`)
      .join(' '),
  ]);
  const header = ['TIME', 'SERVICE', 'ACTION', 'ACTOR', 'REQUEST ID', 'DETAILS'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  const more = result.truncated
    ? [`More records match: run again with --since ${result.nextSince} (records at that instant show again).`]
    : [];
  return [line(header), ...rows.map(line), ...more].join('\n');
}

export const auditList = defineCommand<AuditListInput, AuditListResult>({
  name: 'audit list',
  summary:
    'The audit trail of operator and security-relevant partner actions (who, when, what, request id), every service merged, oldest first.',
  synopsis: `--partner ID | --platform [--since ISO] [--until ISO] [--limit 1..${AUDIT_LIST_LIMIT_MAX}]`,
  flags: {
    partner: valueFlag('ID: the records concerning this partner, a UUID (or --platform)'),
    platform: switchFlag('the platform-wide records instead (switches, secret reseals): those concerning no partner'),
    since: valueFlag(
      'ISO: records at or after this ISO 8601 UTC time, like 2026-01-31T00:00:00Z (default: from the first)',
    ),
    until: valueFlag('ISO: records before this ISO 8601 UTC time (default: up to now)'),
    limit: valueFlag(
      `N: at most this many records in all, an integer from 1 to ${AUDIT_LIST_LIMIT_MAX} (default ${AUDIT_LIST_LIMIT_DEFAULT})`,
    ),
  },
  parse: parseAuditList,
  async run(input, clients) {
    const trails = await Promise.all(auditListers(clients).map(([, list]) => readAuditTrail(list, input)));
    const { records, truncated } = mergeAuditTrails(trails, input.limit);
    const views = records.map(toAuditRecordView);
    return {
      records: views,
      truncated,
      ...(truncated && views.length > 0 ? { nextSince: views[views.length - 1].occurredAt } : {}),
    };
  },
  describe: describeAuditList,
});
