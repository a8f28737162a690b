// Proves `audit list`: its flags (a partner or --platform, an ISO window, a
// bounded limit); the merge of the services' trails by time, cut at the limit,
// with `truncated` whenever a service holds more; the paging of one service's
// trail (never asking past the limit or a page); the printed views (empty
// fields left out) and table; and, through runCli, that every call of a
// command carries the one request id and operator name of the run.
import { currentContext } from '@platform/logger';
import type { common } from '@platform/proto';
import { CliError } from '../cli-error';
import type { OpsClients } from '../clients';
import { operatorName, runCli } from '../main';
import {
  AUDIT_LIST_LIMIT_DEFAULT,
  AUDIT_LIST_LIMIT_MAX,
  auditList,
  describeAuditList,
  mergeAuditTrails,
  parseAuditList,
  readAuditTrail,
  toAuditRecordView,
} from './audit-list';

const partnerId = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';

function record(
  service: string,
  recordId: string,
  occurredAt: string,
  fields: Partial<common.AuditRecord> = {},
): common.AuditRecord {
  return {
    recordId,
    service,
    occurredAt,
    action: 'credential.issued',
    partnerId,
    requestId: '',
    actor: { identity: 'ops', operator: '', partnerId: '', credentialKey: '' },
    details: {},
    ...fields,
  };
}

describe('parseAuditList', () => {
  it('takes a partner, an optional window and the default limit', () => {
    expect(parseAuditList({ partner: partnerId })).toEqual({
      partnerId,
      since: '',
      until: '',
      limit: AUDIT_LIST_LIMIT_DEFAULT,
    });
    expect(
      parseAuditList({ platform: true, since: '2026-01-01T00:00:00Z', until: '2026-02-01T00:00:00Z', limit: '10' }),
    ).toEqual({ partnerId: '', since: '2026-01-01T00:00:00Z', until: '2026-02-01T00:00:00Z', limit: 10 });
  });

  it('refuses, naming each flag: no partner, both scopes, bad times, a reversed window, a limit out of range', () => {
    const refusal = (values: Record<string, string | boolean>) => {
      try {
        parseAuditList(values);
      } catch (error) {
        expect(error).toBeInstanceOf(CliError);
        return (error as CliError).message;
      }
      throw new Error('expected a refusal');
    };
    expect(refusal({})).toContain('--partner (required)');
    expect(refusal({ platform: true, partner: partnerId })).toContain('--platform (not with --partner)');
    expect(refusal({ partner: partnerId, since: 'yesterday', limit: String(AUDIT_LIST_LIMIT_MAX + 1) })).toMatch(
      /--since .*--limit/,
    );
    expect(refusal({ partner: partnerId, since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' })).toContain(
      '--until (after --since)',
    );
  });
});

describe('mergeAuditTrails', () => {
  it('merges by time, then service, then record id (numerically), and cuts at the limit', () => {
    const gateway = {
      records: [
        record('gateway', '9', '2026-01-01T00:00:01.000Z'),
        record('gateway', '10', '2026-01-01T00:00:03.000Z'),
      ],
      more: false,
    };
    const trading = {
      records: [record('trading', '2', '2026-01-01T00:00:02.000Z'), record('trading', '3', '2026-01-01T00:00:03.000Z')],
      more: false,
    };
    const ledger = { records: [record('ledger', '100', '2026-01-01T00:00:03.000Z')], more: false };
    const merged = mergeAuditTrails([gateway, trading, ledger], 10);
    expect(merged.records.map((entry) => `${entry.service}:${entry.recordId}`)).toEqual([
      'gateway:9',
      'trading:2',
      'gateway:10',
      'ledger:100',
      'trading:3',
    ]);
    expect(merged.truncated).toBe(false);
    const cut = mergeAuditTrails([gateway, trading, ledger], 2);
    expect(cut.records.map((entry) => entry.recordId)).toEqual(['9', '2']);
    expect(cut.truncated).toBe(true);
  });

  it('orders record ids of one instant as numbers, not text', () => {
    const trail = {
      records: [
        record('gateway', '10', '2026-01-01T00:00:00.000Z'),
        record('gateway', '9', '2026-01-01T00:00:00.000Z'),
      ],
      more: false,
    };
    expect(mergeAuditTrails([trail], 5).records.map((entry) => entry.recordId)).toEqual(['9', '10']);
  });

  it('says truncated when a service holds more than it was read, even if nothing was cut', () => {
    expect(
      mergeAuditTrails([{ records: [record('gateway', '1', '2026-01-01T00:00:00.000Z')], more: true }], 1).truncated,
    ).toBe(true);
  });
});

describe('readAuditTrail', () => {
  it('follows the cursor page by page, never asking for more than the limit or a page', async () => {
    const requests: common.ListAuditRecordsRequest[] = [];
    const pages = [
      {
        records: Array.from({ length: 500 }, (_, index) =>
          record('gateway', String(index + 1), '2026-01-01T00:00:00.000Z'),
        ),
        page: { nextCursor: 'c1' },
      },
      { records: [record('gateway', '501', '2026-01-01T00:00:01.000Z')], page: { nextCursor: '' } },
    ];
    const trail = await readAuditTrail(
      async (request) => {
        requests.push(request);
        return pages[requests.length - 1];
      },
      { partnerId, since: '', until: '', limit: 700 },
    );
    expect(requests.map((request) => request.page)).toEqual([
      { cursor: '', limit: 500 },
      { cursor: 'c1', limit: 200 },
    ]);
    expect(requests[0]).toMatchObject({ partnerId, since: '', until: '' });
    expect(trail.records).toHaveLength(501);
    expect(trail.more).toBe(false);
  });

  it('stops at the limit and says the service holds more', async () => {
    let calls = 0;
    const trail = await readAuditTrail(
      async () => {
        calls += 1;
        return {
          records: [
            record('gateway', '1', '2026-01-01T00:00:00.000Z'),
            record('gateway', '2', '2026-01-01T00:00:00.000Z'),
          ],
          page: { nextCursor: 'next' },
        };
      },
      { partnerId, since: '', until: '', limit: 2 },
    );
    expect(calls).toBe(1);
    expect(trail).toMatchObject({ more: true });
  });
});

describe('audit list', () => {
  const partnerAction = record('wallet-registry', '4', '2026-01-01T00:00:02.000Z', {
    action: 'administrator.added',
    requestId: 'req-http',
    actor: { identity: 'gateway', operator: '', partnerId, credentialKey: 'pk_test_abc' },
    details: { adminId: 'a1', email: 'j***@example.com' },
  });
  const operatorAction = record('gateway', '7', '2026-01-01T00:00:01.000Z', {
    requestId: 'req-ops',
    actor: { identity: 'ops', operator: 'alice', partnerId: '', credentialKey: '' },
    details: { apiKey: 'pk_test_abc', scopes: 'read' },
  });

  it('reads every service with the same request and prints the merged trail', async () => {
    const asked: string[] = [];
    const lister = (service: string, records: common.AuditRecord[]) => ({
      listAuditRecords: async (request: common.ListAuditRecordsRequest) => {
        asked.push(`${service} ${request.partnerId}`);
        return { records, page: { nextCursor: '' } };
      },
    });
    const clients = {
      partnerAdmin: () => lister('gateway', [operatorAction]),
      tradingOperator: () => lister('trading', []),
      ledger: () => lister('ledger', []),
      walletRegistryAdmin: () => lister('wallet-registry', [partnerAction]),
      webhookAdmin: () => lister('webhook-delivery', []),
      collectionsAdmin: () => lister('collections', []),
    } as unknown as OpsClients;
    const result = await auditList.run(parseAuditList({ partner: partnerId }), clients);
    expect(asked.sort()).toEqual(
      ['collections', 'gateway', 'ledger', 'trading', 'wallet-registry', 'webhook-delivery'].map(
        (service) => `${service} ${partnerId}`,
      ),
    );
    expect(result).toEqual({
      records: [toAuditRecordView(operatorAction), toAuditRecordView(partnerAction)],
      truncated: false,
    });
    expect(result.records[0]).toEqual({
      occurredAt: '2026-01-01T00:00:01.000Z',
      service: 'gateway',
      recordId: '7',
      action: 'credential.issued',
      partnerId,
      actor: { identity: 'ops', operator: 'alice' },
      requestId: 'req-ops',
      details: { apiKey: 'pk_test_abc', scopes: 'read' },
    });
    const table = describeAuditList(result).split('\n');
    expect(table[0]).toMatch(/^TIME\s+SERVICE\s+ACTION\s+ACTOR\s+REQUEST ID\s+DETAILS$/);
    expect(table[1]).toMatch(
      /gateway\s+credential\.issued\s+ops \(alice\)\s+req-ops\s+apiKey=pk_test_abc scopes=read$/,
    );
    expect(table[2]).toMatch(/wallet-registry\s+administrator\.added\s+gateway key pk_test_abc\s+req-http/);
    expect(describeAuditList({ records: [], truncated: false })).toBe('No audit records.');
  });
});

describe('the request context of a run', () => {
  it('carries one request id and the operator name to every call of the command', async () => {
    const seen: Array<{ requestId?: string; operator?: string }> = [];
    const listAuditRecords = async () => {
      const { requestId, operator } = currentContext();
      seen.push({ requestId, operator });
      return { records: [], page: { nextCursor: '' } };
    };
    const lister = () => ({ listAuditRecords });
    const clients = {
      partnerAdmin: lister,
      tradingOperator: lister,
      ledger: lister,
      walletRegistryAdmin: lister,
      webhookAdmin: lister,
      collectionsAdmin: lister,
    } as unknown as OpsClients;
    const out: string[] = [];
    const status = await runCli(['audit', 'list', '--platform', '--json'], {
      io: { stdout: (text) => out.push(text), stderr: () => undefined },
      makeClients: () => ({ ...clients, closeAll: () => undefined }),
      requestContext: () => ({ requestId: 'run-1', operator: 'alice' }),
    });
    expect(status).toBe(0);
    expect(JSON.parse(out.join(''))).toEqual({ records: [], truncated: false });
    expect(seen).toHaveLength(6);
    expect(seen.every((context) => context.requestId === 'run-1' && context.operator === 'alice')).toBe(true);
  });

  it('names the operator by OPS_OPERATOR, else the login name, and refuses a name that is not plain', () => {
    expect(operatorName({ OPS_OPERATOR: 'alice@example.com' }, () => 'root')).toBe('alice@example.com');
    expect(operatorName({}, () => 'bob')).toBe('bob');
    expect(
      operatorName({}, () => {
        throw new Error('no passwd entry');
      }),
    ).toBeUndefined();
    expect(() => operatorName({ OPS_OPERATOR: 'alice\nforged' }, () => 'bob')).toThrow(CliError);
  });
});
