/**
 * The audit recorder: what it stores for an entry done under a request context
 * (who, the request id, details with secrets redacted and account numbers
 * masked), what it refuses as a bug, the one INSERT it makes on the caller's
 * transaction, and how a listing request is validated and paged. The table
 * itself (append-only, in the same transaction) is proven against PostgreSQL
 * in tools/ops/test/audit.int.spec.ts.
 */
import type { EntityManager } from 'typeorm';
import { AppError } from '@platform/errors';
import { runWithContext } from '@platform/logger';
import {
  AUDIT_PAGE_LIMIT_DEFAULT,
  AUDIT_PAGE_LIMIT_MAX,
  auditCursor,
  auditRow,
  listAuditRecords,
  parseAuditQuery,
  recordAudit,
} from './audit';

const PARTNER = '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const OTHER_PARTNER = '0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d';

function fakeManager(rows: unknown[] = []) {
  const calls: Array<{ sql: string; parameters: unknown[] }> = [];
  const manager = {
    query: async (sql: string, parameters: unknown[]) => {
      calls.push({ sql, parameters });
      return rows;
    },
  } as unknown as EntityManager;
  return { manager, calls };
}

describe('auditRow', () => {
  it('names the operator action by the caller identity, the declared operator and the request id', () => {
    const row = auditRow(
      { action: 'partner.suspended', partnerId: PARTNER, details: { status: 'suspended' } },
      { caller: 'ops', operator: 'alice', requestId: 'req-1' },
    );
    expect(row).toEqual({
      action: 'partner.suspended',
      partnerId: PARTNER,
      actor: { identity: 'ops', operator: 'alice', partnerId: '', credentialKey: '' },
      requestId: 'req-1',
      details: { status: 'suspended' },
    });
  });

  it('names a partner action by the authenticated partner and the API key that signed it', () => {
    const row = auditRow(
      { action: 'administrator.added', partnerId: PARTNER },
      { caller: 'gateway', partnerId: PARTNER, credentialKey: 'pk_test_abc', requestId: 'req-2' },
    );
    expect(row.actor).toEqual({ identity: 'gateway', operator: '', partnerId: PARTNER, credentialKey: 'pk_test_abc' });
    expect(row.details).toEqual({});
  });

  it('keeps secrets and codes out and masks account numbers, whatever a caller passes', () => {
    const row = auditRow(
      {
        action: 'webhook_endpoint.set',
        partnerId: PARTNER,
        details: {
          signingSecret: 'whsec-very-secret-value',
          code: '123456',
          accountNumber: '0123456789',
          host: 'hooks.example.com',
          rotated: true,
          count: 3,
        },
      },
      { caller: 'ops' },
    );
    expect(row.details).toEqual({
      signingSecret: '[REDACTED]',
      code: '[REDACTED]',
      accountNumber: '****6789',
      host: 'hooks.example.com',
      rotated: 'true',
      count: '3',
    });
    expect(JSON.stringify(row)).not.toContain('whsec-very-secret-value');
    expect(JSON.stringify(row)).not.toContain('0123456789');
  });

  it('drops a declared operator name that is not a plain name, and a partner id that is not a UUID', () => {
    const row = auditRow(
      { action: 'kill_switch.set', partnerId: null },
      { caller: 'ops', operator: 'alice\nforged line', partnerId: 'not-a-uuid' },
    );
    expect(row.actor).toEqual({ identity: 'ops', operator: '', partnerId: '', credentialKey: '' });
    expect(row.requestId).toBeNull();
  });

  it('refuses, as a bug, an entry without a caller, a malformed action name, a partner that is not a UUID, or oversized details', () => {
    expect(() => auditRow({ action: 'credential.issued', partnerId: PARTNER }, {})).toThrow(/caller/);
    expect(() => auditRow({ action: 'Credential Issued', partnerId: PARTNER }, { caller: 'ops' })).toThrow(/action/);
    expect(() => auditRow({ action: 'credential.issued', partnerId: 'p1' }, { caller: 'ops' })).toThrow(/UUID/);
    const details = Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`key${index}`, 'x'.repeat(200)]));
    expect(() => auditRow({ action: 'credential.issued', partnerId: PARTNER, details }, { caller: 'ops' })).toThrow(
      /exceed/,
    );
  });
});

describe('recordAudit', () => {
  it('inserts one row on the manager it is given, read from the current request context', async () => {
    const { manager, calls } = fakeManager();
    await runWithContext({ caller: 'ops', requestId: 'req-9', operator: 'bob' }, () =>
      recordAudit(manager, { action: 'credential.revoked', partnerId: PARTNER, details: { apiKey: 'pk_test_1' } }),
    );
    expect(calls).toHaveLength(1);
    expect(calls[0].sql).toMatch(/^INSERT INTO audit_records/);
    expect(calls[0].parameters).toEqual([
      'credential.revoked',
      PARTNER,
      'ops',
      'bob',
      null,
      null,
      'req-9',
      '{"apiKey":"pk_test_1"}',
    ]);
  });
});

describe('parseAuditQuery', () => {
  it('reads a partner, an inclusive since and an exclusive until, with the default page size', () => {
    const query = parseAuditQuery({
      partnerId: PARTNER,
      since: '2026-01-01T00:00:00Z',
      until: '2026-02-01T00:00:00.000Z',
    });
    expect(query).toEqual({
      partnerId: PARTNER,
      since: new Date('2026-01-01T00:00:00Z'),
      until: new Date('2026-02-01T00:00:00Z'),
      after: null,
      limit: AUDIT_PAGE_LIMIT_DEFAULT,
    });
  });

  it('takes an empty partner as the platform-wide records, and a cursor as the position after a record', () => {
    const cursor = auditCursor({ occurredAt: '2026-01-01T10:00:00.123Z', recordId: '42' });
    const query = parseAuditQuery({
      partnerId: '',
      since: '',
      until: '',
      page: { cursor, limit: AUDIT_PAGE_LIMIT_MAX },
    });
    expect(query).toEqual({
      partnerId: null,
      since: null,
      until: null,
      after: { occurredAt: new Date('2026-01-01T10:00:00.123Z'), recordId: '42' },
      limit: 500,
    });
  });

  it('refuses every bad field at once', () => {
    let refusal: unknown;
    try {
      parseAuditQuery({
        partnerId: 'nope',
        since: 'yesterday',
        until: '2026-01-01T00:00:00Z',
        page: { cursor: 'x', limit: AUDIT_PAGE_LIMIT_MAX + 1 },
      });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).code).toBe('VALIDATION_FAILED');
    expect((refusal as AppError).fields).toEqual(['partnerId', 'since', 'page.limit', 'page.cursor']);
  });

  it('refuses an until that is not after since', () => {
    expect(() =>
      parseAuditQuery({ partnerId: PARTNER, since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' }),
    ).toThrow(AppError);
  });
});

describe('listAuditRecords', () => {
  const row = (recordId: string, second: number) => ({
    record_id: recordId,
    occurred_at: new Date(`2026-01-01T00:00:0${second}.000Z`),
    action: 'credential.issued',
    partner_id: PARTNER,
    actor_identity: 'ops',
    actor_operator: null,
    actor_partner_id: null,
    actor_credential_key: null,
    request_id: null,
    details: { apiKey: 'pk_test_1' },
  });

  it('answers one page and a cursor after its last record when more remain', async () => {
    const { manager, calls } = fakeManager([row('1', 1), row('2', 2), row('3', 3)]);
    const page = await listAuditRecords(manager, 'gateway', {
      partnerId: OTHER_PARTNER,
      since: null,
      until: null,
      after: null,
      limit: 2,
    });
    expect(calls[0].parameters.at(-1)).toBe(3);
    expect(calls[0].sql).toContain('partner_id = $1::uuid');
    expect(page.records.map((record) => record.recordId)).toEqual(['1', '2']);
    expect(page.records[0]).toEqual({
      recordId: '1',
      service: 'gateway',
      occurredAt: '2026-01-01T00:00:01.000Z',
      action: 'credential.issued',
      partnerId: PARTNER,
      actor: { identity: 'ops', operator: '', partnerId: '', credentialKey: '' },
      requestId: '',
      details: { apiKey: 'pk_test_1' },
    });
    expect(page.page.nextCursor).toBe('2026-01-01T00:00:02.000Z~2');
  });

  it('answers no cursor on the last page, and lists the platform-wide records for no partner', async () => {
    const { manager, calls } = fakeManager([row('1', 1)]);
    const page = await listAuditRecords(manager, 'trading', {
      partnerId: null,
      since: null,
      until: null,
      after: null,
      limit: 2,
    });
    expect(calls[0].sql).toContain('partner_id IS NULL');
    expect(page.page.nextCursor).toBe('');
  });
});
