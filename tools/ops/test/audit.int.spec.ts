// Proves the audit trail on the running test stack. Several audited actions are
// made the way they really are: an operator onboards a partner (five services in
// one `ops partner create`), issues a second credential, sets the webhook
// endpoint and then rotates its secret, suspends and resumes the partner, sets a platform switch to the value
// it already has; the partner adds and removes an administrator through the
// gateway. Then `ops audit list --partner ID --json` returns them merged in time
// order, each with who acted (the certificate identity, the declared operator
// name, or the partner and its API key), when, and the request id (one id for
// the whole `partner create`; the X-Request-Id of the partner's request), and no
// secret, URL token or full e-mail address anywhere in the output. A refused
// action leaves no record, the window flags bound the listing, and the database
// refuses UPDATE, DELETE and TRUNCATE on the table.
import { randomBytes, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { createTestPartner, loadTestStack, PartnerHttpClient, runOps, TestPartner } from '@platform/testing';

const OPERATOR = 'audit-spec-operator';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface AuditView {
  occurredAt: string;
  service: string;
  recordId: string;
  action: string;
  partnerId?: string;
  actor: { identity: string; operator?: string; partnerId?: string; credentialKey?: string };
  requestId?: string;
  details: Record<string, string>;
}

interface AuditList {
  records: AuditView[];
  truncated: boolean;
}

const asOperator = <T>(args: string[]) => runOps<T>(args, { env: { OPS_OPERATOR: OPERATOR } });

describe('the audit trail', () => {
  let partner: TestPartner;
  let issuedSecret: string;
  let issuedKey: string;
  let adminEmail: string;
  let addRequestId: string;
  const webhookSecret = `whsec_${randomBytes(24).toString('hex')}`;
  const rotatedSecret = `whsec_${randomBytes(24).toString('hex')}`;
  const urlToken = `tok${randomBytes(8).toString('hex')}`;
  let listed: AuditList;
  let listedText: string;
  let startedAt: string;

  beforeAll(async () => {
    startedAt = new Date().toISOString();
    const domain = `a${randomUUID().slice(0, 8)}.example.com`;
    partner = await createTestPartner({ adminDomain: domain, rateLimitPerMinute: 10_000 });
    const issued = await asOperator<{ apiKey: string; signingSecret: string }>([
      'credential',
      'issue',
      '--partner',
      partner.partnerId,
      '--scopes',
      'read',
    ]);
    ({ apiKey: issuedKey, signingSecret: issuedSecret } = issued);
    const hook = `https://127.0.0.1:9/audit-hook?token=${urlToken}`;
    await asOperator(['webhook', 'set', '--partner', partner.partnerId, '--url', hook, '--secret', webhookSecret]);
    await asOperator(['webhook', 'set', '--partner', partner.partnerId, '--url', hook, '--secret', rotatedSecret]);
    const http = new PartnerHttpClient(partner);
    // The partner's first administrator receives codes and so may not be removed while it is the only one;
    // the audited one, added second, waits for codes and may be removed at once.
    const keeper = await http.post('/v1/admins', { email: `keeping.admin@${domain}`, name: 'Keeping Admin' });
    expect(keeper.status).toBe(201);
    adminEmail = `audited.admin@${domain}`;
    const added = await http.post<{ adminId: string }>('/v1/admins', { email: adminEmail, name: 'Audited Admin' });
    expect(added.status).toBe(201);
    addRequestId = added.headers.get('x-request-id')!;
    expect((await http.request('DELETE', `/v1/admins/${added.body.adminId}`)).status).toBe(204);
    await asOperator(['partner', 'suspend', '--partner', partner.partnerId]);
    await asOperator(['partner', 'resume', '--partner', partner.partnerId]);
    listed = await runOps<AuditList>(['audit', 'list', '--partner', partner.partnerId]);
    listedText = JSON.stringify(listed);
  });

  it('lists every audited action of the partner in time order, across the services', () => {
    expect(listed.truncated).toBe(false);
    expect(listed.records.map((record) => `${record.service} ${record.action}`)).toEqual([
      'gateway partner.created',
      'trading partner_profile.configured',
      'ledger partner_accounts.opened',
      'wallet-registry admin_domain.configured',
      'gateway credential.issued',
      'gateway credential.issued',
      'webhook-delivery webhook_endpoint.set',
      'webhook-delivery webhook_endpoint.set',
      'wallet-registry administrator.added',
      'wallet-registry administrator.added',
      'wallet-registry administrator.removed',
      'trading partner.suspended',
      'trading partner.resumed',
    ]);
    const times = listed.records.map((record) => record.occurredAt);
    expect(times.every((time) => ISO_MS.test(time))).toBe(true);
    expect([...times].sort()).toEqual(times);
    expect(times[0] >= startedAt).toBe(true);
    expect(listed.records.every((record) => record.partnerId === partner.partnerId)).toBe(true);
  });

  it('names the operator by the ops identity and the declared name, with one request id per command', () => {
    const operatorRecords = listed.records.filter((record) => record.actor.identity === 'ops');
    expect(operatorRecords).toHaveLength(10);
    expect(operatorRecords.every((record) => typeof record.requestId === 'string' && record.requestId.length > 0)).toBe(
      true,
    );
    // The five steps of one `partner create` share its request id; each later command has its own.
    const onboarding = new Set(operatorRecords.slice(0, 5).map((record) => record.requestId));
    expect(onboarding.size).toBe(1);
    expect(new Set(operatorRecords.map((record) => record.requestId)).size).toBe(6);
    const declared = operatorRecords.slice(5);
    expect(declared.every((record) => record.actor.operator === OPERATOR)).toBe(true);
    const issued = listed.records.filter((record) => record.action === 'credential.issued');
    expect(issued.map((record) => record.details)).toEqual([
      { apiKey: partner.apiKey, scopes: expect.any(String) },
      { apiKey: issuedKey, scopes: 'read' },
    ]);
    const endpoints = listed.records.filter((record) => record.action === 'webhook_endpoint.set');
    expect(endpoints.map((record) => record.details)).toEqual([
      { host: '127.0.0.1', created: 'true', rotated: 'false', heldDeliveriesOpened: expect.stringMatching(/^\d+$/) },
      { host: '127.0.0.1', created: 'false', rotated: 'true', heldDeliveriesOpened: '0' },
    ]);
  });

  it('names a partner action by the partner, the API key that signed it and the X-Request-Id', () => {
    const added = listed.records.filter((record) => record.action === 'administrator.added').at(-1)!;
    expect(added.actor).toEqual({ identity: 'gateway', partnerId: partner.partnerId, credentialKey: partner.apiKey });
    expect(added.requestId).toBe(addRequestId);
    expect(added.details).toEqual({ adminId: expect.any(String), email: `a***@${adminEmail.split('@')[1]}` });
    const removed = listed.records.find((record) => record.action === 'administrator.removed')!;
    expect(removed.actor.credentialKey).toBe(partner.apiKey);
    expect(removed.details.adminId).toBe(added.details.adminId);
  });

  it('holds no secret, no URL token and no full e-mail address', () => {
    for (const secret of [partner.signingSecret, issuedSecret, webhookSecret, rotatedSecret, urlToken, adminEmail])
      expect(listedText).not.toContain(secret);
  });

  it('prints a table without --json', async () => {
    const { execFileSync } = await import('node:child_process');
    const path = await import('node:path');
    const table = execFileSync(
      process.execPath,
      [path.join(__dirname, '..', 'dist', 'main.js'), 'audit', 'list', '--partner', partner.partnerId],
      {
        env: { ...process.env, OPS_STACK_FILE: process.env.TEST_STACK_FILE },
        encoding: 'utf8',
      },
    );
    const lines = table.trim().split('\n');
    expect(lines[0]).toMatch(/^TIME\s+SERVICE\s+ACTION\s+ACTOR\s+REQUEST ID\s+DETAILS$/);
    expect(lines).toHaveLength(listed.records.length + 1);
    expect(lines.find((line) => line.includes('partner.suspended'))).toContain(`ops (${OPERATOR})`);
    expect(table).not.toContain(webhookSecret);
  });

  it('bounds the listing by --since, --until and --limit', async () => {
    const suspended = listed.records.find((record) => record.action === 'partner.suspended')!;
    const since = await runOps<AuditList>([
      'audit',
      'list',
      '--partner',
      partner.partnerId,
      '--since',
      suspended.occurredAt,
    ]);
    expect(since.records.map((record) => record.action)).toEqual(['partner.suspended', 'partner.resumed']);
    const until = await runOps<AuditList>([
      'audit',
      'list',
      '--partner',
      partner.partnerId,
      '--until',
      suspended.occurredAt,
    ]);
    expect(until.records).toHaveLength(listed.records.length - 2);
    const limited = await runOps<AuditList & { nextSince?: string }>([
      'audit',
      'list',
      '--partner',
      partner.partnerId,
      '--limit',
      '3',
    ]);
    expect(limited.records).toEqual(listed.records.slice(0, 3));
    expect(limited.truncated).toBe(true);
    expect(limited.nextSince).toBe(listed.records[2].occurredAt);
  });

  it('records a platform switch as a platform-wide record, listed with --platform', async () => {
    const before = new Date().toISOString();
    // Swaps are on by default and no integration spec turns them off: setting "on" changes nothing else.
    await asOperator(['swaps', 'on']);
    const platform = await runOps<AuditList>(['audit', 'list', '--platform', '--since', before]);
    const record = platform.records.find(
      (candidate) => candidate.action === 'platform_switch.set' && candidate.actor.operator === OPERATOR,
    );
    expect(record).toMatchObject({
      service: 'trading',
      details: { name: 'swaps', value: 'on' },
      actor: { identity: 'ops' },
    });
    expect(record!.partnerId).toBeUndefined();
  });

  it('leaves no record of an action that was refused', async () => {
    const unknown = randomUUID();
    await expect(asOperator(['partner', 'suspend', '--partner', unknown])).rejects.toThrow(/PARTNER_NOT_FOUND/);
    expect((await runOps<AuditList>(['audit', 'list', '--partner', unknown])).records).toEqual([]);
  });

  describe('in the database', () => {
    let pool: Pool;

    beforeAll(() => {
      pool = new Pool({ connectionString: loadTestStack().databases.trading, max: 1 });
    });

    afterAll(() => pool.end());

    const count = async () =>
      Number(
        (await pool.query('SELECT count(*) AS n FROM audit_records WHERE partner_id = $1', [partner.partnerId])).rows[0]
          .n,
      );

    it('refuses UPDATE, DELETE and TRUNCATE of the audit records, even by the role that owns the table', async () => {
      const before = await count();
      expect(before).toBeGreaterThan(0);
      for (const statement of [
        "UPDATE audit_records SET action = 'partner.resumed' WHERE partner_id = $1",
        'DELETE FROM audit_records WHERE partner_id = $1',
      ]) {
        await expect(pool.query(statement, [partner.partnerId])).rejects.toMatchObject({ code: '42501' });
      }
      await expect(pool.query('TRUNCATE audit_records')).rejects.toMatchObject({ code: '42501' });
      expect(await count()).toBe(before);
    });

    it('refuses them through the trigger too, should the privileges be granted back', async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // The owner may grant itself the privileges again; the trigger still refuses. Rolled back either way.
        await client.query('GRANT UPDATE, DELETE, TRUNCATE ON audit_records TO CURRENT_USER');
        await expect(
          client.query('DELETE FROM audit_records WHERE partner_id = $1', [partner.partnerId]),
        ).rejects.toThrow(/append-only: DELETE refused/);
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
      expect(await count()).toBeGreaterThan(0);
    });
  });
});
