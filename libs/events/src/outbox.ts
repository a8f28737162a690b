/**
 * The transactional outbox. A service writes its event row in the same
 * database transaction as the state change that caused it, so an event exists
 * if and only if the change committed. The relay publishes rows afterwards.
 */
import { randomUUID } from 'node:crypto';
import { currentTraceparent } from '@platform/tracing';
import type { EntityManager } from 'typeorm';
import type { BusEvent, PartnerEventType } from './catalogue';

/**
 * DDL of the outbox table, version 1. Each service's first migration runs it
 * in its own database. Frozen: a change is a new constant and a new migration.
 */
export const OUTBOX_TABLE_V1_SQL = `
  CREATE TABLE outbox (
    id uuid PRIMARY KEY,
    partner_id uuid NOT NULL,
    type text NOT NULL,
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz,
    publish_attempts integer NOT NULL DEFAULT 0,
    last_error text
  );
  CREATE INDEX outbox_unpublished_idx ON outbox (created_at) WHERE published_at IS NULL;
`;
export const OUTBOX_TABLE_V1_DOWN_SQL = 'DROP TABLE outbox';

/**
 * Version 2: the W3C traceparent of the span that wrote the event (null when
 * none was active), which the relay publishes as the message's `traceparent`
 * header so the consumer continues the trace. Nullable, no default: adding it
 * rewrites nothing. Frozen like version 1.
 */
export const OUTBOX_TRACEPARENT_V2_SQL = 'ALTER TABLE outbox ADD COLUMN traceparent text';
export const OUTBOX_TRACEPARENT_V2_DOWN_SQL = 'ALTER TABLE outbox DROP COLUMN traceparent';

/**
 * Published rows by publication time: what the retention worker deletes walks
 * (docs/retention.md). Built CONCURRENTLY, so the migration that runs it sets
 * `transaction = false`. Frozen like the table's versions.
 */
export const OUTBOX_PUBLISHED_INDEX_SQL =
  'CREATE INDEX CONCURRENTLY IF NOT EXISTS outbox_published_idx ON outbox (published_at) WHERE published_at IS NOT NULL';
export const OUTBOX_PUBLISHED_INDEX_DOWN_SQL = 'DROP INDEX CONCURRENTLY IF EXISTS outbox_published_idx';

/**
 * The outbox's retention rule (@platform/persistence RetentionRule): a row is
 * deleted `windowMs` after it was published. Nothing reads a published row
 * (the relay reads unpublished rows only; the events feed is webhook-delivery's
 * own table), so the window only keeps it for inspection; an unpublished row
 * is never deleted.
 */
export function outboxRetentionRule(windowMs: number) {
  return {
    table: 'outbox',
    idColumn: 'id',
    timeColumn: 'published_at',
    where: 'published_at IS NOT NULL',
    windowMs,
  };
}

export interface NewEvent<D> {
  partnerId: string;
  type: PartnerEventType;
  data: D;
  /** Defaults to a fresh UUID. Pass one to make the event id deterministic. */
  id?: string;
  createdAt?: Date;
}

/** Writes the event in the caller's transaction, with the active trace context. Returns the bus envelope. */
export async function enqueueEvent<D extends object>(manager: EntityManager, event: NewEvent<D>): Promise<BusEvent<D>> {
  const envelope: BusEvent<D> = {
    id: event.id ?? randomUUID(),
    type: event.type,
    createdAt: (event.createdAt ?? new Date()).toISOString(),
    partnerId: event.partnerId,
    data: event.data,
  };
  await manager.query(
    'INSERT INTO outbox (id, partner_id, type, payload, created_at, traceparent) VALUES ($1, $2, $3, $4, $5, $6)',
    [
      envelope.id,
      envelope.partnerId,
      envelope.type,
      JSON.stringify(envelope),
      envelope.createdAt,
      currentTraceparent(),
    ],
  );
  return envelope;
}
