/**
 * Moving secrets sealed at rest to the current key of a sealing key ring, in
 * bounded batches. Each value is opened and sealed again in the process (the
 * key ring does both) and written back only if it is still the value read
 * (compare-and-swap), so a secret changed meanwhile keeps its new value. The
 * caller repeats while `remaining` > 0.
 */
import type { Logger } from '@platform/logger';
import type { DataSource } from 'typeorm';
import { recordAudit } from './audit';

/** A text column holding sealed values, and the primary key that identifies its rows. */
export interface SealedColumn {
  table: string;
  idColumn: string;
  column: string;
}

/** What a reseal needs of a key ring: the current key id, and reseal (null when already current). */
export interface ResealingKeys {
  currentKeyId: string;
  reseal(sealed: string): string | null;
}

export interface ResealOutcome {
  resealed: number;
  remaining: number;
  /** Values that open with no key of the ring (a key dropped too early, or a tampered row): left as they are. */
  unopenable: number;
}

export const RESEAL_BATCH_SIZE_DEFAULT = 500;
export const RESEAL_BATCH_SIZE_MAX = 5_000;
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
/** Sealed values of the current version name their key here: `v2.<key id>.` */
const currentPrefix = (keys: ResealingKeys) => `v2.${keys.currentKeyId}.`;

function assertIdentifiers(column: SealedColumn): void {
  for (const name of [column.table, column.idColumn, column.column]) {
    if (!IDENTIFIER.test(name)) throw new RangeError(`not a plain SQL identifier: ${name}`);
  }
}

/** Rows of `column` not sealed under the current key: `left(value, n) <> prefix` (no LIKE: `_` is a wildcard there). */
const notCurrent = (column: SealedColumn) => `${column.column} IS NOT NULL AND left(${column.column}, length($1)) <> $1`;

async function resealBatch(dataSource: DataSource, keys: ResealingKeys, column: SealedColumn, limit: number): Promise<{ resealed: number; unopenable: number }> {
  const rows = await dataSource.query(
    `SELECT ${column.idColumn} AS id, ${column.column} AS sealed FROM ${column.table} WHERE ${notCurrent(column)} ORDER BY ${column.idColumn} LIMIT $2`,
    [currentPrefix(keys), limit],
  ) as Array<{ id: string; sealed: string }>;
  let resealed = 0;
  let unopenable = 0;
  for (const row of rows) {
    let next: string | null;
    try {
      next = keys.reseal(row.sealed);
    } catch {
      unopenable += 1;
      continue;
    }
    if (next === null) continue;
    const [, updated] = await dataSource.query(
      `UPDATE ${column.table} SET ${column.column} = $1 WHERE ${column.idColumn} = $2 AND ${column.column} = $3`,
      [next, row.id, row.sealed],
    ) as [unknown, number];
    resealed += updated;
  }
  return { resealed, unopenable };
}

async function countRemaining(dataSource: DataSource, keys: ResealingKeys, column: SealedColumn): Promise<number> {
  const [row] = await dataSource.query(`SELECT count(*)::int AS remaining FROM ${column.table} WHERE ${notCurrent(column)}`, [currentPrefix(keys)]) as Array<{ remaining: number }>;
  return row.remaining;
}

/** Reseals at most `batchSize` values across `columns`, in order; then counts what is left. */
export async function resealColumns(dataSource: DataSource, keys: ResealingKeys, columns: SealedColumn[], batchSize: number): Promise<ResealOutcome> {
  columns.forEach(assertIdentifiers);
  const limit = Math.min(Math.max(1, batchSize), RESEAL_BATCH_SIZE_MAX);
  let resealed = 0;
  let unopenable = 0;
  for (const column of columns) {
    if (resealed + unopenable >= limit) break;
    const batch = await resealBatch(dataSource, keys, column, limit - resealed - unopenable);
    resealed += batch.resealed;
    unopenable += batch.unopenable;
  }
  let remaining = 0;
  for (const column of columns) remaining += await countRemaining(dataSource, keys, column);
  return { resealed, remaining, unopenable };
}

/**
 * The operator's reseal of one service's sealed columns (its ResealSecrets RPC):
 * a batch per call, logged with counts and key id, never a value, and recorded
 * in the service's audit trail when it moved any.
 */
export class ResealSecretsUseCase {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: ResealingKeys,
    private readonly columns: SealedColumn[],
    private readonly logger: Logger,
  ) {}

  async execute(command: { batchSize: number }): Promise<{ currentKeyId: string; resealed: number; remaining: number }> {
    const outcome = await resealColumns(this.dataSource, this.keys, this.columns, command.batchSize || RESEAL_BATCH_SIZE_DEFAULT);
    this.logger.info('secrets resealed under the current key', { currentKeyId: this.keys.currentKeyId, ...outcome });
    if (outcome.unopenable > 0) {
      this.logger.error('sealed secrets that open with no key of the ring were left as they are', { unopenable: outcome.unopenable, currentKeyId: this.keys.currentKeyId });
    }
    // Each value was rewritten on its own (compare-and-swap), so the batch is recorded once it is done.
    if (outcome.resealed > 0) {
      await recordAudit(this.dataSource.manager, {
        action: 'secrets.resealed', partnerId: null, details: { currentKeyId: this.keys.currentKeyId, resealed: outcome.resealed, remaining: outcome.remaining },
      });
    }
    return { currentKeyId: this.keys.currentKeyId, resealed: outcome.resealed, remaining: outcome.remaining };
  }
}
