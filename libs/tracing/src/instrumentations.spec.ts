// Proves the standard instrumentations cost nothing unless spans are exported:
// without an OTLP endpoint none of their packages is even required; with one,
// pg, ioredis and http are registered once per process with the settings that
// keep them cheap (spans only inside a trace, no incoming HTTP spans, Redis
// commands by name only), and node:http is patched as it is required.
// Each package's factory records that it was required, then gives the real one.
const mockRequired: string[] = [];
function mockRecorded(name: string) {
  mockRequired.push(name);
  return jest.requireActual(name);
}
jest.mock('@opentelemetry/instrumentation', () => mockRecorded('@opentelemetry/instrumentation'));
jest.mock('@opentelemetry/instrumentation-pg', () => mockRecorded('@opentelemetry/instrumentation-pg'));
jest.mock('@opentelemetry/instrumentation-ioredis', () => mockRecorded('@opentelemetry/instrumentation-ioredis'));
jest.mock('@opentelemetry/instrumentation-http', () => mockRecorded('@opentelemetry/instrumentation-http'));

import { registerStandardInstrumentations, STANDARD_INSTRUMENTATIONS, unregisterStandardInstrumentations } from './instrumentations';

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
    expect(instrumentations.map((instrumentation) => instrumentation.instrumentationName)).toEqual([...STANDARD_INSTRUMENTATIONS]);
    expect(mockRequired).toEqual(expect.arrayContaining(['@opentelemetry/instrumentation', ...STANDARD_INSTRUMENTATIONS]));
    const [pg, ioredis, http] = instrumentations.map((instrumentation) => instrumentation.getConfig() as Record<string, unknown>);
    expect(pg).toMatchObject({ enabled: true, requireParentSpan: true, ignoreConnectSpans: true, enhancedDatabaseReporting: false });
    expect(ioredis).toMatchObject({ enabled: true, requireParentSpan: true });
    expect((ioredis.dbStatementSerializer as (name: string, args: unknown[]) => string)('get', ['credential:secret-key'])).toBe('get');
    expect(http).toMatchObject({ enabled: true, disableIncomingRequestInstrumentation: true, requireParentforOutgoingSpans: true });
    expect(registerStandardInstrumentations('http://another-collector:4318')).toBe(instrumentations);
  });

  it('patches node:http when it is required', () => {
    const { isWrapped } = jest.requireActual('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const http = require('node:http') as typeof import('node:http');
    expect(isWrapped(http.request)).toBe(true);
    unregisterStandardInstrumentations();
    expect(isWrapped(http.request)).toBe(false);
  });
});
