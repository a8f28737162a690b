// Runs the clone rule of bench/lib/clone-sql.js against a database: reads a table's shape
// (columns, unique indexes) and its template rows, checks the clones can be inserted, then
// inserts them in chunks inside the caller's transaction.
import { cloneColumns, cloneInsertSql, identifier, missingColumns, uniqueIndexProblems } from '../lib/clone-sql.js';

/** What makes seeding stop before it writes: the schema is not the one a seeder knows. */
export class SeedSchemaError extends Error {}

const COLUMNS_SQL = `
  SELECT column_name AS name, data_type AS type,
         (is_identity = 'YES' OR coalesce(column_default, '') LIKE 'nextval(%') AS generated,
         is_generated = 'ALWAYS' AS computed
    FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`;

const UNIQUE_INDEXES_SQL = `
  SELECT c.relname AS name, i.indnullsnotdistinct AS "nullsNotDistinct", pg_get_expr(i.indpred, i.indrelid) AS predicate,
         array(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                 LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                WHERE k.n <= i.indnkeyatts ORDER BY k.n) AS columns
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
   WHERE i.indrelid = $1::regclass AND i.indisunique`;

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Ids of several rows of one kind, each with a clone role of its own: `${prefix}_a`, `${prefix}_b`, … (at most 26). */
export function lettered(prefix, ids) {
  if (ids.length > LETTERS.length)
    throw new SeedSchemaError(`the template has ${ids.length} ${prefix} rows, at most ${LETTERS.length} can be cloned`);
  return ids.map((id, index) => ({ id, role: `${prefix}_${LETTERS[index]}` }));
}

export async function tableExists(client, table) {
  const { rows } = await client.query("SELECT to_regclass('public.' || $1) IS NOT NULL AS present", [table]);
  return rows[0].present;
}

/** Columns ({ name, type, generated }) and unique indexes of a table; computed columns are never inserted. */
async function tableShape(client, table) {
  const { rows: columns } = await client.query(COLUMNS_SQL, [table]);
  const { rows: indexes } = await client.query(UNIQUE_INDEXES_SQL, [`public.${table}`]);
  return {
    columns: columns
      .filter((column) => !column.computed)
      .map(({ name, type, generated }) => ({ name, type, generated })),
    indexes,
  };
}

/** The template rows `where` (alias tpl) selects, as to_jsonb objects. */
export async function templateRows(client, table, where) {
  const { rows } = await client.query(`SELECT to_jsonb(tpl) AS row FROM ${identifier(table)} tpl WHERE ${where}`);
  return rows.map((row) => row.row);
}

async function withPredicates(client, table, where, indexes) {
  return Promise.all(
    indexes.map(async (index) => {
      if (!index.predicate) return { ...index, predicateApplies: true };
      const { rows } = await client.query(
        `SELECT bool_or(${index.predicate}) AS applies FROM ${identifier(table)} tpl WHERE ${where}`,
      );
      return { ...index, predicateApplies: rows[0].applies === true };
    }),
  );
}

/**
 * Everything needed to clone one table, checked: the table and the columns the seeder relies
 * on exist, the template rows are there (`expectedRows`: a number, or 'some'), and no unique
 * index would repeat. Throws SeedSchemaError otherwise.
 * spec: { database, table, where, requiredColumns, expectedRows, overrides, joins, orderBy }.
 */
export async function planClone(client, spec, { ids, shift }) {
  const where = `${spec.database}.${spec.table}`;
  if (!(await tableExists(client, spec.table))) throw new SeedSchemaError(`${where} does not exist`);
  const shape = await tableShape(client, spec.table);
  const missing = missingColumns(shape.columns, [
    ...(spec.requiredColumns ?? []),
    ...Object.keys(spec.overrides ?? {}),
  ]);
  if (missing.length > 0) throw new SeedSchemaError(`${where} lacks ${missing.join(', ')}`);
  const rows = await templateRows(client, spec.table, spec.where);
  const expected = spec.expectedRows ?? 1;
  if (expected === 'some' ? rows.length === 0 : rows.length !== expected) {
    throw new SeedSchemaError(`${where}: the template has ${rows.length} row(s) here, the seeder expects ${expected}`);
  }
  const overrides = spec.overrides ?? {};
  const indexes = await withPredicates(client, spec.table, spec.where, shape.indexes);
  // Every template row must be safe to clone: check the indexes against each.
  const problems = rows.flatMap((template) =>
    uniqueIndexProblems({ table: where, indexes, columns: shape.columns, template, ids, overrides }),
  );
  if (problems.length > 0) throw new SeedSchemaError([...new Set(problems)].join('; '));
  // Which columns get an id mapping is decided per template row; union them over the rows.
  const selected = cloneColumns({ columns: shape.columns, template: mergedTemplate(rows), ids, overrides, shift });
  return { ...spec, selected, templateRows: rows.length };
}

/** One object whose values hold every row's value of a column (for "does it hold an id"). */
function mergedTemplate(rows) {
  if (rows.length === 1) return rows[0];
  const merged = {};
  for (const row of rows)
    for (const [key, value] of Object.entries(row))
      merged[key] = merged[key] === undefined || merged[key] === null ? value : [merged[key], value];
  return merged;
}

/**
 * Inserts clones first..last of a planned table (inside the caller's transaction); resolves to rows written.
 * `plan.firstClone`, when set, leaves out the clones before it (older than the table's retention window).
 */
export async function insertClones(client, plan, first, last) {
  const from = Math.max(first, plan.firstClone ?? 1);
  if (from > last) return 0;
  const result = await client.query(
    cloneInsertSql({
      table: plan.table,
      selected: plan.selected,
      where: plan.where,
      joins: plan.joins,
      first: from,
      last,
      orderBy: plan.orderBy,
    }),
  );
  return result.rowCount;
}
