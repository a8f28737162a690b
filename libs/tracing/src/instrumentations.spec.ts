// Proves the standard instrumentations cost nothing unless spans are exported:
// without an OTLP endpoint none of their packages is even required; with one,
// pg, ioredis and http are registered once per process with the settings that
// keep them cheap (spans only inside a trace, no incoming HTTP spans, Redis
// commands by name only). Each package's factory records that it was required,
// then gives the real one. Jest's module registry hides the patching itself
// (it loads modules without Node's require), so a plain Node process proves it:
// this module, compiled by swc and loaded as an entry point loads it, leaves pg,
// ioredis and node:http(s) untouched without an endpoint and patches them with one.
const mockRequired: string[] = [];
function mockRecorded(name: string) {
  mockRequired.push(name);
  return jest.requireActual(name);
}
jest.mock('@opentelemetry/instrumentation', () => mockRecorded('@opentelemetry/instrumentation'));
jest.mock('@opentelemetry/instrumentation-pg', () => mockRecorded('@opentelemetry/instrumentation-pg'));
jest.mock('@opentelemetry/instrumentation-ioredis', () => mockRecorded('@opentelemetry/instrumentation-ioredis'));
jest.mock('@opentelemetry/instrumentation-http', () => mockRecorded('@opentelemetry/instrumentation-http'));

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { transformFileSync } from '@swc/core';
import {
  registerStandardInstrumentations,
  STANDARD_INSTRUMENTATIONS,
  unregisterStandardInstrumentations,
} from './instrumentations';

const SOURCE = path.join(__dirname, 'instrumentations.ts');

/**
 * Runs this module in a fresh Node process (requiring from its own folder, as
 * the built library does), registers with `endpoint`, then requires pg,
 * ioredis and node:http(s) and reports what is patched and what was loaded.
 */
function patchedInNode(endpoint: string | undefined): Record<string, boolean> {
  const { code } = transformFileSync(SOURCE, {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  const script = `
    const requireHere = require('node:module').createRequire(${JSON.stringify(SOURCE)});
    const module = { exports: {} };
    new Function('exports', 'require', 'module', ${JSON.stringify(code)})(module.exports, requireHere, module);
    module.exports.registerStandardInstrumentations(process.env.OTEL_EXPORTER_OTLP_ENDPOINT);
    const loaded = Object.keys(require.cache).some((file) => file.includes('@opentelemetry/instrumentation'));
    const wrapped = (f) => typeof f === 'function' && f.__wrapped === true;
    const pg = requireHere('pg');
    const { Redis } = requireHere('ioredis');
    process.stdout.write(JSON.stringify({
      loaded, pg: wrapped(pg.Client.prototype.query), ioredis: wrapped(Redis.prototype.sendCommand),
      http: wrapped(require('node:http').request), https: wrapped(require('node:https').request),
    }));`;
  const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint };
  if (endpoint === undefined) delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { env, encoding: 'utf8', timeout: 30_000 }));
}

afterAll(() => {
  unregisterStandardInstrumentations();
});

describe('without an OTLP endpoint', () => {
  it('registers nothing and loads no instrumentation package', () => {
    expect(registerStandardInstrumentations(undefined)).toEqual([]);
    expect(mockRequired).toEqual([]);
  });
});

describe('with an OTLP endpoint', () => {
  it('registers pg, ioredis and http once, only inside traces, without incoming HTTP spans', () => {
    const instrumentations = registerStandardInstrumentations('http://otel-collector:4318');
    expect(instrumentations.map((instrumentation) => instrumentation.instrumentationName)).toEqual([
      ...STANDARD_INSTRUMENTATIONS,
    ]);
    expect(mockRequired).toEqual(
      expect.arrayContaining(['@opentelemetry/instrumentation', ...STANDARD_INSTRUMENTATIONS]),
    );
    const [pg, ioredis, http] = instrumentations.map(
      (instrumentation) => instrumentation.getConfig() as Record<string, unknown>,
    );
    expect(pg).toMatchObject({
      enabled: true,
      requireParentSpan: true,
      ignoreConnectSpans: true,
      enhancedDatabaseReporting: false,
    });
    expect(ioredis).toMatchObject({ enabled: true, requireParentSpan: true });
    expect(
      (ioredis.dbStatementSerializer as (name: string, args: unknown[]) => string)('get', ['credential:secret-key']),
    ).toBe('get');
    expect(http).toMatchObject({
      enabled: true,
      disableIncomingRequestInstrumentation: true,
      requireParentforOutgoingSpans: true,
    });
    expect(registerStandardInstrumentations('http://another-collector:4318')).toBe(instrumentations);
  });
});

describe('in a Node process', () => {
  it('loads and patches nothing without an endpoint', () => {
    expect(patchedInNode(undefined)).toEqual({ loaded: false, pg: false, ioredis: false, http: false, https: false });
  });

  it('patches pg, ioredis and node:http(s) required after registration with an endpoint', () => {
    expect(patchedInNode('http://otel-collector:4318')).toEqual({
      loaded: true,
      pg: true,
      ioredis: true,
      http: true,
      https: true,
    });
  });
});
