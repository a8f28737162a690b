/**
 * The audit trail: who did what, when, to which partner, under which request.
 * Every service that performs operator actions or security-relevant partner
 * actions keeps one table of the same shape, `audit_records`, and writes a
 * record with `recordAudit` on the transaction that makes the change, so the
 * record and the change commit together or not at all. The database refuses
 * UPDATE, DELETE and TRUNCATE on the table (a trigger, and the privileges
 * revoked from the owning role): records are only ever added.
 *
 * Who acted comes from the request context the gRPC server sets: the caller's
 * certificate identity (authenticated), the operator name the ops tool
 * declares, and for partner actions the partner and API key the gateway
 * authenticated. Details are a small map of non-secret strings, passed through
 * the logger's redaction as well, so a secret, a code or a full account number
 * never lands in a record even by mistake.
 */
import { validationFailed } from '@platform/errors';
import { isUuid } from '@platform/ids';
import { currentContext, redactField, RequestContext } from '@platform/logger';
import type { DataSource, EntityManager } from 'typeorm';

/** `credential.issued`, `webhook_endpoint.set`: lowercase words joined by dots. */
export const AUDIT_ACTION_PATTERN = /^[a-z][a-z_]{0,30}(\.[a-z][a-z_]{0,30}){1,2}$/;
/** A record's details, as stored JSON text: details are a few identifiers and counts. */
export const AUDIT_DETAILS_BYTES_MAX = 2_048;
export const AUDIT_DETAIL_VALUE_CHARS_MAX = 256;
export const AUDIT_PAGE_LIMIT_DEFAULT = 100;
export const AUDIT_PAGE_LIMIT_MAX = 500;
/** What the declared operator name may look like (a login name or an e-mail address). */
export const OPERATOR_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)~(\d{1,19})$/;

/** What a use case says it did. */
export interface AuditEntry {
  /** Object then verb, past tense: `credential.issued`, `partner.suspended`. */
  action: string;
  /** The partner the action concerns; null for a platform-wide action (a switch, a reseal). */
  partnerId: string | null;
  /** Non-secret facts: ids, statuses, masked values, counts. */
  details?: Record<string, string | number | boolean>;
}

/** Who acted; an empty string where a field does not apply (the RPC's shape). */
export interface AuditActor {
  /** The caller's certificate identity (`ops`, `gateway`): authenticated. */
  identity: string;
  /** The operator name the ops tool declared: not authenticated, a label beside the identity. */
  operator: string;
  /** Partner actions: the partner the gateway authenticated. */
  partnerId: string;
  /** Partner actions: the API key (the credential's public identifier) that signed the request. */
  credentialKey: string;
}

export interface AuditRecord {
  recordId: string;
  /** The service whose trail holds it. */
  service: string;
  /** ISO 8601 UTC with milliseconds. */
  occurredAt: string;
  action: string;
  /** Empty for a platform-wide action. */
  partnerId: string;
  actor: AuditActor;
  /** Empty when the caller sent none. */
  requestId: string;
  details: Record<string, string>;
}

/** The row `recordAudit` inserts: built purely, so a unit test sees exactly what is stored. */
export interface AuditRow {
  action: string;
  partnerId: string | null;
  actor: AuditActor;
  requestId: string | null;
  details: Record<string, string>;
}

/** Each value as a string, through the logger's redaction (a secret-named key is redacted, an account number masked). */
function auditDetails(details: AuditEntry['details']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(details ?? {})) {
    const redacted = redactField(key, String(value));
    out[key] = String(redacted).slice(0, AUDIT_DETAIL_VALUE_CHARS_MAX);
  }
  if (Buffer.byteLength(JSON.stringify(out)) > AUDIT_DETAILS_BYTES_MAX)
    throw new Error(`audit details of ${Object.keys(out).length} keys exceed ${AUDIT_DETAILS_BYTES_MAX} bytes`);
  return out;
}

function auditActor(context: RequestContext): AuditActor {
  // Every audited action is served over mutual TLS, so a caller is always known: without one it is a bug.
  if (!context.caller) throw new Error('an audited action ran without a caller identity in its request context');
  return {
    identity: context.caller,
    operator: context.operator && OPERATOR_NAME_PATTERN.test(context.operator) ? context.operator : '',
    partnerId: context.partnerId && isUuid(context.partnerId) ? context.partnerId : '',
    credentialKey: context.credentialKey ?? '',
  };
}

/** The row for `entry` done under `context`; throws on a malformed entry (a bug in the caller). */
export function auditRow(entry: AuditEntry, context: RequestContext): AuditRow {
  if (!AUDIT_ACTION_PATTERN.test(entry.action))
    throw new Error(`not an audit action name: ${JSON.stringify(entry.action)}`);
  if (entry.partnerId !== null && !isUuid(entry.partnerId))
    throw new Error('an audit record names a partner by its UUID');
  return {
    action: entry.action,
    partnerId: entry.partnerId,
    actor: auditActor(context),
    requestId: context.requestId ?? null,
    details: auditDetails(entry.details),
  };
}

/**
 * Records `entry` on `manager`, which must be the transaction that makes the
 * change: the record commits with it. The caller is read from the request
 * context of the gRPC call being served.
 */
export async function recordAudit(
  manager: EntityManager,
  entry: AuditEntry,
  context: RequestContext = currentContext(),
): Promise<void> {
  const row = auditRow(entry, context);
  await manager.query(
    `INSERT INTO audit_records (action, partner_id, actor_identity, actor_operator, actor_partner_id, actor_credential_key, request_id, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      row.action,
      row.partnerId,
      row.actor.identity,
      row.actor.operator || null,
      row.actor.partnerId || null,
      row.actor.credentialKey || null,
      row.requestId,
      JSON.stringify(row.details),
    ],
  );
}

/**
 * The table, its index, and what makes it append-only. One shape for every
 * service: each service's migration runs these statements unchanged. A later
 * change of shape is a new list (V2) and a new migration in each service,
 * never an edit here, since migrations that ran must keep meaning what they did.
 */
export const AUDIT_RECORDS_TABLE_V1: readonly string[] = [
  `CREATE TABLE audit_records (
    record_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    occurred_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
    action text NOT NULL CHECK (action ~ '^[a-z][a-z_]{0,30}(\\.[a-z][a-z_]{0,30}){1,2}$'),
    partner_id uuid,
    actor_identity text NOT NULL CHECK (actor_identity ~ '^[a-z][a-z0-9-]{0,62}$'),
    actor_operator text CHECK (length(actor_operator) <= 64),
    actor_partner_id uuid,
    actor_credential_key text CHECK (length(actor_credential_key) <= 128),
    request_id text CHECK (length(request_id) <= 128),
    details jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object' AND octet_length(details::text) <= 4096)
  )`,
  'CREATE INDEX audit_records_partner_time ON audit_records (partner_id, occurred_at, record_id)',
  `CREATE FUNCTION audit_records_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'audit_records is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
   END $$`,
  // Statement-level, so even an UPDATE or DELETE that matches no row is refused, and TRUNCATE too.
  `CREATE TRIGGER audit_records_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_records
   FOR EACH STATEMENT EXECUTE FUNCTION audit_records_refuse_change()`,
  // The services connect as the role that owns their tables: take the privileges from it as well.
  'REVOKE UPDATE, DELETE, TRUNCATE ON audit_records FROM PUBLIC, CURRENT_USER',
];

export const AUDIT_RECORDS_TABLE_V1_DOWN: readonly string[] = [
  'DROP TABLE audit_records',
  'DROP FUNCTION audit_records_refuse_change()',
];

/** A page of one service's trail, as its ListAuditRecords RPC answers it. */
export interface AuditPage {
  records: AuditRecord[];
  page: { nextCursor: string };
}

export interface ListAuditRecordsCommand {
  /** A UUID: that partner's records; empty: the platform-wide records (no partner). */
  partnerId: string;
  /** ISO 8601 UTC, inclusive; empty: from the first record. */
  since: string;
  /** ISO 8601 UTC, exclusive; empty: no end. */
  until: string;
  page?: { cursor: string; limit: number };
}

interface AuditQuery {
  partnerId: string | null;
  since: Date | null;
  until: Date | null;
  after: { occurredAt: Date; recordId: string } | null;
  limit: number;
}

function parseIso(value: string): Date | null {
  if (!ISO_UTC.test(value)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** Validates a listing request; every bad field at once, as VALIDATION_FAILED. */
export function parseAuditQuery(command: ListAuditRecordsCommand): AuditQuery {
  const bad: string[] = [];
  if (command.partnerId !== '' && !isUuid(command.partnerId)) bad.push('partnerId');
  const since = command.since === '' ? null : parseIso(command.since);
  const until = command.until === '' ? null : parseIso(command.until);
  if (command.since !== '' && since === null) bad.push('since');
  if (command.until !== '' && until === null) bad.push('until');
  if (since && until && until <= since) bad.push('until');
  const limit = command.page?.limit || AUDIT_PAGE_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_LIMIT_MAX) bad.push('page.limit');
  const cursor = command.page?.cursor ? CURSOR.exec(command.page.cursor) : null;
  if (command.page?.cursor && !cursor) bad.push('page.cursor');
  if (bad.length > 0) throw validationFailed(bad);
  return {
    partnerId: command.partnerId === '' ? null : command.partnerId,
    since,
    until,
    after: cursor ? { occurredAt: new Date(cursor[1]), recordId: cursor[2] } : null,
    limit,
  };
}

interface AuditRecordRow {
  record_id: string;
  occurred_at: Date;
  action: string;
  partner_id: string | null;
  actor_identity: string;
  actor_operator: string | null;
  actor_partner_id: string | null;
  actor_credential_key: string | null;
  request_id: string | null;
  details: Record<string, string>;
}

function toAuditRecord(service: string, row: AuditRecordRow): AuditRecord {
  return {
    recordId: row.record_id,
    service,
    occurredAt: row.occurred_at.toISOString(),
    action: row.action,
    partnerId: row.partner_id ?? '',
    actor: {
      identity: row.actor_identity,
      operator: row.actor_operator ?? '',
      partnerId: row.actor_partner_id ?? '',
      credentialKey: row.actor_credential_key ?? '',
    },
    requestId: row.request_id ?? '',
    details: row.details,
  };
}

export function auditCursor(record: Pick<AuditRecord, 'occurredAt' | 'recordId'>): string {
  return `${record.occurredAt}~${record.recordId}`;
}

/** One page, oldest first: by time, then by record id (the order of insertion). */
export async function listAuditRecords(
  manager: EntityManager | DataSource,
  service: string,
  query: AuditQuery,
): Promise<AuditPage> {
  // Two conditions rather than `IS NOT DISTINCT FROM`, so both use the (partner_id, occurred_at, record_id) index.
  const partnerCondition =
    query.partnerId === null ? '$1::uuid IS NULL AND partner_id IS NULL' : 'partner_id = $1::uuid';
  const rows = (await manager.query(
    `SELECT record_id::text AS record_id, occurred_at, action, partner_id, actor_identity, actor_operator, actor_partner_id,
            actor_credential_key, request_id, details
     FROM audit_records
     WHERE ${partnerCondition}
       AND occurred_at >= COALESCE($2::timestamptz, '-infinity') AND occurred_at < COALESCE($3::timestamptz, 'infinity')
       AND ($4::timestamptz IS NULL OR (occurred_at, record_id) > ($4::timestamptz, $5::bigint))
     ORDER BY occurred_at, record_id
     LIMIT $6`,
    [
      query.partnerId,
      query.since,
      query.until,
      query.after?.occurredAt ?? null,
      query.after?.recordId ?? null,
      query.limit + 1,
    ],
  )) as AuditRecordRow[];
  const records = rows.slice(0, query.limit).map((row) => toAuditRecord(service, row));
  const more = rows.length > query.limit;
  return { records, page: { nextCursor: more ? auditCursor(records[records.length - 1]) : '' } };
}

/** The operators' ListAuditRecords RPC of one service: one bounded page of its trail. */
export class ListAuditRecordsUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly service: string,
  ) {}

  async execute(command: ListAuditRecordsCommand): Promise<AuditPage> {
    return listAuditRecords(this.dataSource, this.service, parseAuditQuery(command));
  }
}
