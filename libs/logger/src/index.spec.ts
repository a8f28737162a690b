// Proves what one log line is: a single JSON object on stdout with level,
// message, service, the request's ids from async context (a field the call gives
// wins), the active span's trace and span ids beside them and none outside a span, every field redacted by its own name and the names inside it, errors as
// name/message/stack, a bigint kept as a string rather than the line lost, the
// time last; child fields included; levels below the logger's dropped before
// anything is formatted; silent writes nothing. The common call, `logger.info(message,
// fields)` on the logger createLogger made, is written without winston's `log`: its
// line is compared, field by field and in order, with the one `log` makes of the same call.
import { contextFromTraceparent, inSpan, SpanKind, startTracing } from '@platform/tracing';
import { createLogger, runWithContext } from './index';

function capture(work: () => void): Array<Record<string, unknown>> {
  const lines: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    work();
  } finally {
    spy.mockRestore();
  }
  return lines.map((line) => {
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    return JSON.parse(line) as Record<string, unknown>;
  });
}

describe('createLogger', () => {
  it('writes one JSON line with the service, the context ids and the time', () => {
    const logger = createLogger('svc', 'info');
    const [line] = capture(() =>
      runWithContext({ requestId: 'req-1', partnerId: 'p-1' }, () => logger.info('served', { status: 200 })),
    );
    expect(line).toEqual({
      level: 'info',
      message: 'served',
      service: 'svc',
      status: 200,
      requestId: 'req-1',
      partnerId: 'p-1',
      timestamp: expect.any(String),
    });
    expect(Object.keys(line).slice(0, 2)).toEqual(['level', 'message']);
    expect(Object.keys(line).at(-1)).toBe('timestamp');
    expect(new Date(String(line.timestamp)).toISOString()).toBe(line.timestamp);
  });

  it("writes the active span's trace and span ids beside the request id, and none outside a span", async () => {
    startTracing({ service: 'svc' });
    const logger = createLogger('svc', 'info');
    const parent = contextFromTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    const lines: Array<Record<string, unknown>> = [];
    await runWithContext({ requestId: 'req-1' }, () =>
      inSpan('served', { kind: SpanKind.SERVER, parent }, async () => {
        lines.push(...capture(() => logger.info('inside')));
      }),
    );
    lines.push(...capture(() => logger.info('outside')));
    expect(lines[0]).toMatchObject({
      requestId: 'req-1',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    expect(lines[0].spanId).not.toBe('00f067aa0ba902b7');
    expect(lines[1]).not.toHaveProperty('traceId');
    expect(lines[1]).not.toHaveProperty('spanId');
  });

  it('keeps a request id the call gives over the context one', () => {
    const logger = createLogger('svc', 'info');
    const [line] = capture(() =>
      runWithContext({ requestId: 'from-context' }, () => logger.info('x', { requestId: 'given' })),
    );
    expect(line.requestId).toBe('given');
  });

  it('redacts secrets and codes and masks account numbers, at the top level and inside', () => {
    const logger = createLogger('svc', 'info');
    const [line] = capture(() =>
      logger.warn('x', {
        signingSecret: 's3cr3t',
        code: '123456',
        accountNumber: '0712345678',
        nested: { otp: '654321', phone: '254700111222', ok: 'kept' },
      }),
    );
    const text = JSON.stringify(line);
    for (const leaked of ['s3cr3t', '123456', '0712345678', '654321', '254700111222'])
      expect(text).not.toContain(leaked);
    expect(line).toMatchObject({
      signingSecret: '[REDACTED]',
      code: '[REDACTED]',
      accountNumber: '****5678',
      nested: { otp: '[REDACTED]', phone: '****1222', ok: 'kept' },
    });
  });

  it('writes errors as name, message and stack, and a bigint as a string', () => {
    const logger = createLogger('svc', 'info');
    const [line] = capture(() => logger.error('failed', { error: new TypeError('boom'), big: 12345678901234567890n }));
    expect(line.error).toEqual({
      name: 'TypeError',
      message: 'boom',
      stack: expect.stringContaining('TypeError: boom'),
    });
    expect(line.big).toBe('12345678901234567890');
  });

  it('adds a child logger fields and drops levels below the logger', () => {
    const logger = createLogger('svc', 'info');
    const lines = capture(() => {
      const child = logger.child({ context: 'Relay' });
      child.debug('hidden');
      child.info('shown');
    });
    expect(lines).toEqual([expect.objectContaining({ message: 'shown', context: 'Relay', service: 'svc' })]);
  });

  it('does not even format a line below its level', () => {
    const logger = createLogger('svc', 'warn');
    const serialised = jest.spyOn(JSON, 'stringify');
    try {
      const lines = capture(() => {
        logger.info('below', { field: 'x' });
        logger.child({ context: 'Relay' }).debug('below too');
      });
      expect(lines).toEqual([]);
      expect(serialised).not.toHaveBeenCalled();
    } finally {
      serialised.mockRestore();
    }
  });

  it('writes nothing when silent', () => {
    const logger = createLogger('svc', 'info');
    logger.silent = true;
    expect(capture(() => logger.error('quiet'))).toEqual([]);
  });

  describe('the common call written without winston', () => {
    const withoutTime = (line: Record<string, unknown>) => ({ ...line, timestamp: undefined });
    const secretHolder = { apiSecret: 's3cr3t', nested: { accountNumber: '0123456789', otp: '123456' } };

    it.each([
      ['plain fields', 'request served', { method: 'GET', status: 200, durationMs: 3 }],
      ['secrets and numbers inside', 'paid', { payout: secretHolder, signature: 'abc', msisdn: '254700000001' }],
      ['a field named like a default one', 'moved', { service: 'other', requestId: 'given' }],
      ['a level field', 'levelled', { level: 'fatal', status: 1 }],
      ['an array', 'listed', ['a', 'b']],
      ['a printf token', 'at 50% done', { share: 50 }],
      ['a message field', 'outer', { message: 'inner' }],
      ['an error', 'failed', new TypeError('boom')],
      ['a cause', 'failed', { cause: 'upstream' }],
    ])('writes %s as winston does', (_name, message, fields) => {
      const logger = createLogger('svc', 'info');
      const lines = capture(() =>
        runWithContext({ requestId: 'req-1', partnerId: 'p-1' }, () => {
          logger.info(message, fields);
          logger.log('info', message, fields);
        }),
      );
      expect(lines).toHaveLength(2);
      expect(Object.keys(lines[0])).toEqual(Object.keys(lines[1]));
      expect(withoutTime(lines[0])).toEqual(withoutTime(lines[1]));
    });

    it('keeps the level, silence and child fields', () => {
      const logger = createLogger('svc', 'warn');
      const child = logger.child({ context: 'Relay' });
      const lines = capture(() => {
        logger.info('below', { field: 'x' });
        logger.warn('shown', { field: 'x' });
        child.warn('from the child', { field: 'y' });
        logger.silent = true;
        logger.error('quiet', { field: 'z' });
      });
      expect(lines).toEqual([
        expect.objectContaining({ level: 'warn', message: 'shown', service: 'svc', field: 'x' }),
        expect.objectContaining({ level: 'warn', message: 'from the child', context: 'Relay', field: 'y' }),
      ]);
    });
  });
});
