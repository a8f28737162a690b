/**
 * Synchronous calls between services point one way: no service calls another that calls it
 * back, directly or around a longer loop. Each service's gRPC access table
 * (services/<name>/src/grpc/access.ts) names, per RPC, the identities allowed to call it, and
 * the services enforce exactly those tables, so the tables are the call graph as it runs:
 * an edge caller → service for every service identity a table admits. This spec fails on a
 * cycle in that graph and names it; the README draws the same graph.
 */
import fs from 'node:fs';
import path from 'node:path';

const SERVICES_DIR = path.join(__dirname, '..', '..', 'services');
/** Identities that call services but are not one (the operator's CLI). */
const NOT_SERVICES = new Set(['ops']);

type CallGraph = Map<string, Set<string>>;

/** Every caller identity named anywhere in an access table's nested entries. */
function callersIn(table: unknown): string[] {
  if (Array.isArray(table)) return table.filter((entry): entry is string => typeof entry === 'string');
  if (table && typeof table === 'object') return Object.values(table).flatMap(callersIn);
  return [];
}

function servedGraph(): CallGraph {
  const graph: CallGraph = new Map();
  for (const service of fs.readdirSync(SERVICES_DIR)) {
    const accessFile = path.join(SERVICES_DIR, service, 'src', 'grpc', 'access.ts');
    if (!fs.existsSync(accessFile)) continue;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const tables = require(accessFile) as Record<string, unknown>;
    for (const caller of new Set(callersIn(tables))) {
      if (NOT_SERVICES.has(caller) || caller === service) continue;
      graph.set(caller, (graph.get(caller) ?? new Set()).add(service));
    }
  }
  return graph;
}

/** A cycle of the graph as [a, b, …, a], or null when it has none (depth-first, colouring nodes). */
function findCycle(graph: CallGraph): string[] | null {
  const state = new Map<string, 'visiting' | 'done'>();
  const trail: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'visiting') return [...trail.slice(trail.indexOf(node)), node];
    state.set(node, 'visiting');
    trail.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    trail.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

describe('the synchronous call graph', () => {
  it('finds a cycle when one is there (the check itself)', () => {
    const graph: CallGraph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
    ]);
    expect(findCycle(graph)).toEqual(['a', 'b', 'c', 'a']);
    expect(findCycle(new Map([['a', new Set(['b'])]]))).toBeNull();
  });

  it('reads an edge for every service an access table admits', () => {
    const graph = servedGraph();
    // The gateway calls every domain service; the ledger is reached by trading, payouts and collections.
    expect([...(graph.get('gateway') ?? [])].sort()).toEqual(
      expect.arrayContaining(['collections', 'ledger', 'payouts', 'trading', 'wallet-registry', 'webhook-delivery']),
    );
    expect(graph.get('trading')?.has('ledger')).toBe(true);
  });

  it('has no cycle: no service calls one that calls it back', () => {
    expect(findCycle(servedGraph())).toBeNull();
  });
});
