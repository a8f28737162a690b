// Seeds partners directly in PostgreSQL: `count` clones of one real partner created with the
// ops tool (its webhook endpoint set, no orders, no funding), through every service's own
// tables, with the rule of bench/lib/clone-sql.js. Which rows are the partner's is found,
// not listed: every row of every service database that mentions the partner's id, then every
// row that mentions the primary-key uuid of one of those (its accounts, administrators, …),
// until nothing new turns up. Each such row's uuid primary key becomes an id of its own per
// clone; outbox rows (events already published) are left out. Columns unique without an id
// in them get a value per clone from CLONE_VALUES; any other unique index that would repeat
// stops the seeding before it writes (clone.mjs), naming the index.
import { cloneIdSql, identifier, literal, timeShiftSql } from '../lib/clone-sql.js';
import { planClone, SeedSchemaError } from './clone.mjs';
import { analyseCloned, cloneInChunks, withSeeding } from './seeding.mjs';

/** Per database.table: { column: SQL of clone s.i's value } for columns unique without an id in them. */
const CLONE_VALUES = Object.freeze({
  // The key's 24 characters after its prefix: md5 hex of the clone (the CHECK allows [A-Za-z0-9]).
  'svc_gateway.credentials': {
    api_key: (tag) =>
      `regexp_replace(tpl.api_key, '[A-Za-z0-9]{24}$', '') || substr(md5(${literal(`${tag}:key:`)} || s.i), 1, 24)`,
  },
  // 11 digits starting with 0: never one the ledger issues (first digit 1–9) nor one a payer can type.
  'svc_ledger.partner_accounts': {
    kes_account_reference: () => `'0' || lpad(s.i::text, 10, '0')`,
    usdt_deposit_address: () => 'NULL',
  },
});
const SKIPPED_TABLES = new Set(['outbox']);
const DISCOVERY_ROUNDS_MAX = 4;

const PRIMARY_KEY_SQL = `
  SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
    FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
   WHERE i.indrelid = $1::regclass AND i.indisprimary`;

/** Referencing → referenced tables within one database, for the insert order. */
const FOREIGN_KEYS_SQL = `
  SELECT c.conrelid::regclass::text AS "from", c.confrelid::regclass::text AS "to"
    FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace`;

/** Role names for found ids: row_a … row_z, row_aa …. */
function roleOf(index) {
  let name = '';
  let rest = index;
  do {
    name = String.fromCharCode(97 + (rest % 26)) + name;
    rest = Math.floor(rest / 26) - 1;
  } while (rest >= 0);
  return `row_${name}`;
}

const mentions = (ids) => ids.map(({ id }) => `strpos(tpl::text, ${literal(id)}) > 0`).join(' OR ');

async function publicTables(client) {
  const { rows } = await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
  return rows.map((row) => row.tablename).filter((name) => !SKIPPED_TABLES.has(name));
}

/** The uuid primary-key values of the rows of `table` that mention any of `ids`, and their count. */
async function mentioningRows(client, table, ids) {
  const { rows: count } = await client.query(
    `SELECT count(*)::int AS n FROM ${identifier(table)} tpl WHERE ${mentions(ids)}`,
  );
  if (count[0].n === 0) return { rows: 0, keys: [] };
  const { rows: keyColumns } = await client.query(PRIMARY_KEY_SQL, [`public.${table}`]);
  const uuidKeys = keyColumns.filter((column) => column.type === 'uuid').map((column) => column.name);
  const keys = [];
  for (const column of uuidKeys) {
    const { rows } = await client.query(
      `SELECT DISTINCT ${identifier(column)}::text AS id FROM ${identifier(table)} tpl WHERE ${mentions(ids)}`,
    );
    keys.push(...rows.map((row) => row.id));
  }
  return { rows: count[0].n, keys };
}

/** Every table holding the partner's rows ({ database, table, rows }) and every id found, with roles. */
async function discover(clients, partnerId) {
  const ids = [{ id: partnerId, role: 'partner' }];
  let found = new Map();
  for (let round = 0; round < DISCOVERY_ROUNDS_MAX; round += 1) {
    const before = ids.length;
    found = new Map();
    for (const [database, client] of clients) {
      for (const table of await publicTables(client)) {
        const { rows, keys } = await mentioningRows(client, table, ids);
        if (rows === 0) continue;
        found.set(`${database}.${table}`, { database, table, rows });
        for (const id of keys)
          if (!ids.some((known) => known.id === id)) ids.push({ id, role: roleOf(ids.length - 1) });
      }
    }
    if (ids.length === before) return { ids, tables: [...found.values()] };
  }
  throw new SeedSchemaError(`the partner's rows kept leading to new ids after ${DISCOVERY_ROUNDS_MAX} rounds`);
}

/** `tables` of one database in an order where each comes after the tables it references. */
async function insertOrder(client, tables) {
  const { rows } = await client.query(FOREIGN_KEYS_SQL);
  const names = new Set(tables.map((entry) => entry.table));
  const ordered = [];
  const visit = (name, path = new Set()) => {
    if (ordered.includes(name) || path.has(name)) return;
    path.add(name);
    for (const edge of rows) if (edge.from === name && names.has(edge.to) && edge.to !== name) visit(edge.to, path);
    ordered.push(name);
  };
  for (const entry of tables) visit(entry.table);
  return ordered.map((name) => tables.find((entry) => entry.table === name));
}

/**
 * Seeds `count` clones of the partner `partnerId`, created at moments spread over `spanMs`
 * before it. Resolves to { count, rows: { 'db.table': n }, timings: { step: ms }, durationMs }.
 */
export async function seedPartners({ urlTemplate, databases, partnerId, count, tag, spanMs, log = () => {} }) {
  const startedAt = Date.now();
  return withSeeding(urlTemplate, databases, async ({ clients, begin, commit }) => {
    const { ids, tables } = await discover(clients, partnerId);
    log(`  the partner's rows: ${tables.map((entry) => `${entry.database}.${entry.table} ${entry.rows}`).join(', ')}`);
    const withSql = ids.map(({ id, role }) => ({ id, role, sql: cloneIdSql(tag, role) }));
    const nowMs = Date.now();
    const stepMs = Math.max(1, Math.floor(spanMs / count));
    const shift = timeShiftSql({ endMs: nowMs - stepMs, stepMs, count, anchorIso: new Date(nowMs).toISOString() });
    const plans = [];
    for (const [database, client] of clients) {
      const own = tables.filter((entry) => entry.database === database);
      if (own.length === 0) continue;
      await begin(database);
      for (const entry of await insertOrder(client, own)) {
        const values = CLONE_VALUES[`${database}.${entry.table}`] ?? {};
        const overrides = Object.fromEntries(Object.entries(values).map(([column, sql]) => [column, sql(tag)]));
        plans.push(
          await planClone(
            client,
            { database, table: entry.table, where: `(${mentions(ids)})`, expectedRows: entry.rows, overrides },
            { ids: withSql, shift },
          ),
        );
      }
    }
    const timings = {};
    const rows = await cloneInChunks(clients, plans, count, { what: 'partners', log, timings });
    await commit();
    await analyseCloned(clients, plans, timings);
    log(`  seeding milliseconds: ${JSON.stringify(timings)}`);
    return { count, rows, timings, durationMs: Date.now() - startedAt };
  });
}
