/**
 * The metric families the platform's code defines, and the families a PromQL
 * expression reads, so that every alert and every dashboard query can be held
 * to names that exist.
 *
 * Defined families are collected from the code: each family is declared as an
 * object literal `{ name: '<family>', help: … }` (counter(), gauge(),
 * histogram() of @platform/metrics, or a scrape-time probe's families) in the
 * sources of libs/ and services/; a histogram also answers to its _bucket, _sum
 * and _count series. Node's process metrics come from prom-client itself (a
 * registry with collectProcessMetrics, read back).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { collectProcessMetrics, Registry } from '@platform/metrics';
import { REPO_ROOT } from './repository';

export type FamilyType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

/** Series Prometheus itself makes for every target, which no code defines. */
export const PROMETHEUS_SERIES = ['up'];

const DECLARATION = /\bname:\s*'([a-zA-Z_:][a-zA-Z0-9_:]*)'\s*,\s*help:/g;
/** The nearest declaring call before a name says its type. */
const DECLARING_CALL = /\b(counter|gauge|histogram|ScrapeProbes\.group)\s*(?:<[^>]*>)?\(/g;
const DECLARATION_LOOKBACK_CHARS = 400;
const SERIES_SUFFIXES: Partial<Record<FamilyType, string[]>> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['_sum', '_count'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sourceFiles(full);
    return full.endsWith('.ts') && !full.endsWith('.spec.ts') && !full.endsWith('.d.ts') ? [full] : [];
  });
}

function typeAt(text: string, index: number): FamilyType {
  const before = text.slice(Math.max(0, index - DECLARATION_LOOKBACK_CHARS), index);
  const calls = [...before.matchAll(DECLARING_CALL)];
  const nearest = calls[calls.length - 1]?.[1];
  return nearest === 'counter' || nearest === 'histogram' ? nearest : 'gauge';
}

/** Families declared in the sources of libs/*\/src and services/*\/src, by name. */
export function familiesInCode(): Map<string, FamilyType> {
  const families = new Map<string, FamilyType>();
  const sourceRoots = ['libs', 'services'].flatMap((group) =>
    readdirSync(path.join(REPO_ROOT, group))
      .map((name) => path.join(REPO_ROOT, group, name, 'src'))
      .filter((dir) => {
        try {
          return statSync(dir).isDirectory();
        } catch {
          return false;
        }
      }),
  );
  for (const file of sourceRoots.flatMap(sourceFiles)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(DECLARATION)) families.set(match[1], typeAt(text, match.index ?? 0));
  }
  return families;
}

/** Node's process metrics as prom-client defines them (process_*, nodejs_*). */
export async function processFamilies(): Promise<Map<string, FamilyType>> {
  const registry = new Registry();
  collectProcessMetrics(registry);
  const described = await registry.getMetricsAsJSON();
  registry.clear();
  return new Map(described.map((family) => [family.name, String(family.type) as FamilyType]));
}

/** Every series name a query may read: each family, a histogram's series, and Prometheus's own. */
export function seriesNames(families: Map<string, FamilyType>): Set<string> {
  const names = new Set<string>(PROMETHEUS_SERIES);
  for (const [name, type] of families) {
    names.add(name);
    for (const suffix of SERIES_SUFFIXES[type] ?? []) names.add(`${name}${suffix}`);
  }
  return names;
}

/** Aggregations, functions and keywords of PromQL: never metric names. */
const PROMQL_WORDS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'count',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'quantile',
  'count_values',
  'group',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names an expression reads: what is left once strings, label
 * matchers, ranges, grouping clauses and function calls are set aside.
 */
export function metricsInExpression(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w.:])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    if (match[2] || PROMQL_WORDS.has(match[1])) continue;
    names.add(match[1]);
  }
  return [...names];
}
