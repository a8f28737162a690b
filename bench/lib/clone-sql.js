// History seeding by cloning: one real order is placed through the API and settled, and its
// rows in each service's own tables are copied N times with INSERT … SELECT over
// generate_series. A clone keeps every column of the real row, so it is what the code
// writes, whatever columns a migration adds, except:
//   - ids: every uuid, text or json column holding one of the template's ids (order,
//     quote, entry, …) gets the clone's id instead (the same id in every database);
//   - time: every timestamp moves by the same interval, so clone i happened at its own
//     moment inside the window and keeps the real row's spacing (created → expires …);
//   - identity and serial columns take their default;
//   - whatever a seeder overrides (running balances, a partner reference).
// Before anything is written, every unique index must be shown to stay unique under that
// rule, or the seeder stops and says which index and table to adapt.
// Pure SQL text building and checks (unit-tested); bench/seed/ runs them.
'use strict';

const { WINDOW_MARGIN_MS } = require('./retention-window');

const { createHash } = require('node:crypto');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TAG = /^[a-z0-9-]{1,40}$/;
const ROLE = /^[a-z_]{1,20}$/;
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
const TIME_TYPES = new Set(['timestamp with time zone', 'timestamp without time zone']);
const TEXT_TYPES = new Set(['text', 'character varying', 'character']);
const JSON_TYPES = new Set(['json', 'jsonb']);

function identifier(name) {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain SQL identifier: ${name}`);
  return `"${name}"`;
}

const literal = (text) => `'${String(text).replaceAll("'", "''")}'`;

function assertTagAndRole(tag, role) {
  if (!TAG.test(tag)) throw new Error(`seed tag must match ${TAG}: ${tag}`);
  if (!ROLE.test(role)) throw new Error(`id role must match ${ROLE}: ${role}`);
}

/** The clone's id for `role` (order, quote, entry …) in SQL: md5 of tag:role:i, shaped as a v4 uuid. */
function cloneIdSql(tag, role, indexExpression = 's.i') {
  assertTagAndRole(tag, role);
  return `overlay(overlay(md5(${literal(`${tag}:${role}:`)} || ${indexExpression}) placing '4' from 13) placing '8' from 17)::uuid`;
}

/** The same id in JavaScript (to read a clone back through the API). */
function cloneId(tag, role, index) {
  assertTagAndRole(tag, role);
  const hex = createHash('md5').update(`${tag}:${role}:${index}`).digest('hex');
  const shaped = `${hex.slice(0, 12)}4${hex.slice(13, 16)}8${hex.slice(17)}`;
  return `${shaped.slice(0, 8)}-${shaped.slice(8, 12)}-${shaped.slice(12, 16)}-${shaped.slice(16, 20)}-${shaped.slice(20)}`;
}

/**
 * The interval clone i moves by: clone i of `count` happens at endMs − (count − i + 1) × stepMs,
 * the template happened at anchorIso.
 */
function timeShiftSql({ endMs, stepMs, count, anchorIso }) {
  for (const [name, value] of Object.entries({ endMs, stepMs, count })) {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  }
  if (Number.isNaN(Date.parse(anchorIso))) throw new Error(`anchor is not a time: ${anchorIso}`);
  return `(to_timestamp((${endMs}::bigint - (${count}::bigint - s.i + 1) * ${stepMs}::bigint) / 1000.0) - ${literal(anchorIso)}::timestamptz)`;
}

/**
 * The first clone (1-based) of `count`, the last at `endMs` and `stepMs` apart, that is
 * younger than `windowMs` before `nowMs` by WINDOW_MARGIN_MS; count + 1 when none is.
 */
function firstCloneWithin({ count, endMs, stepMs, windowMs, nowMs }) {
  const cutoffMs = nowMs - windowMs + WINDOW_MARGIN_MS;
  if (endMs < cutoffMs) return count + 1;
  return Math.max(1, count + 1 - Math.floor((endMs - cutoffMs) / stepMs));
}

/** Does the template's value (from to_jsonb of the row) hold one of the ids? */
function holdsId(value, ids) {
  if (value === null || value === undefined) return false;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return ids.some(({ id }) => text.includes(id));
}

function replaceIds(textExpression, ids) {
  return ids.reduce(
    (expression, { id, sql }) => `replace(${expression}, ${literal(id)}, (${sql})::text)`,
    textExpression,
  );
}

/**
 * The SELECT list of a clone: [{ name, expression }] (identity and serial columns left out).
 * columns: [{ name, type, generated }]; template: the real row (to_jsonb); ids: [{ id, sql }];
 * overrides: { column: SQL }; shift: the interval SQL.
 */
function cloneColumns({ columns, template, ids, overrides = {}, shift }) {
  for (const { id } of ids) if (!UUID.test(id)) throw new Error(`template id is not a uuid: ${id}`);
  const unknown = Object.keys(overrides).filter((name) => !columns.some((column) => column.name === name));
  if (unknown.length > 0) throw new Error(`overrides name columns the table lacks: ${unknown.join(', ')}`);
  return columns
    .filter((column) => !column.generated || overrides[column.name])
    .map(({ name, type }) => {
      const source = `tpl.${identifier(name)}`;
      if (overrides[name]) return { name, expression: overrides[name] };
      if (TIME_TYPES.has(type)) return { name, expression: `${source} + ${shift}` };
      if (!holdsId(template[name], ids)) return { name, expression: source };
      if (type === 'uuid') {
        const cases = ids.map(({ id, sql }) => `WHEN ${literal(id)}::uuid THEN ${sql}`).join(' ');
        return { name, expression: `CASE ${source} ${cases} ELSE ${source} END` };
      }
      if (TEXT_TYPES.has(type)) return { name, expression: replaceIds(source, ids) };
      if (JSON_TYPES.has(type)) return { name, expression: `${replaceIds(`${source}::text`, ids)}::${type}` };
      throw new Error(`column ${name} (${type}) holds a template id and the clone rule has no way to change it`);
    });
}

/**
 * INSERT … SELECT of clones first..last of the template row(s) `where` selects (alias tpl).
 * `joins` may add relations the overrides read (e.g. locked account balances).
 */
function cloneInsertSql({ table, selected, where, joins = '', first, last, orderBy = 's.i' }) {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || first < 1 || last < first)
    throw new Error(`bad clone range ${first}..${last}`);
  return `INSERT INTO ${identifier(table)} (${selected.map(({ name }) => identifier(name)).join(', ')})
    SELECT ${selected.map(({ expression }) => expression).join(',\n           ')}
      FROM ${identifier(table)} tpl ${joins}
     CROSS JOIN generate_series(${first}, ${last}) AS s(i)
     WHERE ${where}
     ORDER BY ${orderBy}`;
}

/**
 * Unique indexes the clones would break: each index needs one member that differs per
 * clone (overridden, generated, holding a template id) or a NULL in the template (NULLs
 * are distinct unless the index says otherwise); a partial index the template does not
 * fall under cannot conflict. An expression member cannot be judged.
 * indexes: [{ name, columns: [name | null], predicateApplies, nullsNotDistinct }].
 */
function uniqueIndexProblems({ table, indexes, columns, template, ids, overrides = {} }) {
  const generated = new Set(columns.filter((column) => column.generated).map((column) => column.name));
  const varies = (name, index) =>
    name !== null &&
    (Boolean(overrides[name]) ||
      generated.has(name) ||
      holdsId(template[name], ids) ||
      ((template[name] === null || template[name] === undefined) && !index.nullsNotDistinct));
  return indexes
    .filter((index) => index.predicateApplies && !index.columns.some((name) => varies(name, index)))
    .map(
      (index) =>
        `${table}: unique index ${index.name} (${index.columns.map((name) => name ?? '<expression>').join(', ')}) would repeat in every clone`,
    );
}

/** Names in `needed` that `columns` lacks. */
function missingColumns(columns, needed) {
  return needed.filter((name) => !columns.some((column) => column.name === name));
}

module.exports = {
  cloneIdSql,
  cloneId,
  timeShiftSql,
  firstCloneWithin,
  cloneColumns,
  cloneInsertSql,
  uniqueIndexProblems,
  missingColumns,
  literal,
  identifier,
};
