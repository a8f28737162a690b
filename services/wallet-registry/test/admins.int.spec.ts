// Proves, through the gateway against the real stack, the administrator routes
// of the partner API: the success shapes, the exact-domain e-mail rule (a table
// of accepted and refused addresses), the idempotent re-registration of one
// e-mail, removal (204, then 404), the 404s for unknown and foreign ids, and
// the scopes (wallets to write, read to list). The waiting period, the notices
// and the last-code-recipient rule: admin-changes.int.spec.ts.
import { UUID_PATTERN } from '@platform/ids';
import { createLogger } from '@platform/logger';
import { walletRegistry } from '@platform/proto';
import { clientAs, runOps, TestPartner } from '@platform/testing';
import { partnerWithClient, RecordingClient } from './helpers';

describe('administrators', () => {
  let partner: TestPartner;
  let http: RecordingClient;
  let domain: string;

  beforeAll(async () => {
    ({ partner, http, adminDomain: domain } = await partnerWithClient());
  });

  it('registers an administrator: 201 with the spec shape', async () => {
    const created = await http.post('/v1/admins', { email: `jane@${domain}`, name: 'Jane Wanjiru' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      adminId: expect.stringMatching(UUID_PATTERN),
      email: `jane@${domain}`,
      name: 'Jane Wanjiru',
      status: 'active',
    });
  });

  it('returns the existing administrator (200, unchanged) when the same e-mail is registered again', async () => {
    const first = await http.post('/v1/admins', { email: `repeat@${domain}`, name: 'First Name' });
    const again = await http.post('/v1/admins', { email: `repeat@${domain.toUpperCase()}`, name: 'Another Name' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const list = await http.get('/v1/admins');
    expect(list.body.filter((admin: { email: string }) => admin.email === `repeat@${domain}`)).toHaveLength(1);
  });

  it('registers the same e-mail once under concurrent requests', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => http.post('/v1/admins', { email: `race@${domain}`, name: 'Race' })),
    );
    expect(results.map((result) => result.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((result) => result.body.adminId)).size).toBe(1);
  });

  const accepted = (d: string) => [
    [`a.b@${d}`, `a.b@${d}`],
    [`Mixed.Case@${d.toUpperCase()}`, `Mixed.Case@${d}`],
    [`plus+tag@${d}`, `plus+tag@${d}`],
    [`${'x'.repeat(64)}@${d}`, `${'x'.repeat(64)}@${d}`],
  ];
  const refused = (d: string) => [
    `jane@sub.${d}`,
    `jane@${d}.evil.io`,
    `jane@${d}.`,
    `jane@x${d}`,
    `jane@${d.replace('example', 'examp1e')}`,
    `jane@${d.replace('example', 'exаmple')}`, // Cyrillic а
    `"a@b"@${d}`,
    `"jane"@${d}`,
    `jane@@${d}`,
    `.jane@${d}`,
    `ja..ne@${d}`,
    `jane.@${d}`,
    `ja ne@${d}`,
    `jané@${d}`,
    `${'x'.repeat(65)}@${d}`,
    `jane@`,
    `jane`,
    `@${d}`,
  ];

  it('accepts well-formed addresses on the exact domain, domain case-insensitively', async () => {
    for (const [email, stored] of accepted(domain)) {
      const result = await http.post('/v1/admins', { email, name: 'Accepted' });
      expect({ email, status: result.status, stored: result.body.email }).toEqual({ email, status: 201, stored });
    }
  });

  it('refuses subdomains, lookalikes, quoted local parts and malformed addresses: 400 naming email', async () => {
    for (const email of refused(domain)) {
      const result = await http.post('/v1/admins', { email, name: 'Refused' });
      expect({ email, status: result.status, message: result.body.message }).toEqual({
        email,
        status: 400,
        message: 'Validation failed on: email',
      });
    }
  });

  it('refuses malformed bodies naming each field', async () => {
    const noName = await http.post('/v1/admins', { email: `n@${domain}` });
    expect(noName.status).toBe(400);
    expect(noName.body.message).toBe('Validation failed on: name');
    const both = await http.post('/v1/admins', { email: 'nobody@elsewhere.io', name: '\u0007' });
    expect(both.body.message).toBe('Validation failed on: email, name');
    const extra = await http.post('/v1/admins', { email: `n@${domain}`, name: 'N', role: 'owner' });
    expect(extra.body.message).toBe('Validation failed on: role');
  });

  it('lists active administrators only, earliest first, and removes one: 204 then 404', async () => {
    const { http: own, adminDomain } = await partnerWithClient();
    const first = await own.post('/v1/admins', { email: `first@${adminDomain}`, name: 'First' });
    const second = await own.post('/v1/admins', { email: `second@${adminDomain}`, name: 'Second' });
    let list = await own.get('/v1/admins');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([first.body, second.body]);

    // The second is still in its waiting period, so it can go while the first stays the code recipient.
    const removed = await own.delete(`/v1/admins/${second.body.adminId}`);
    expect(removed.status).toBe(204);
    expect(removed.text).toBe('');
    list = await own.get('/v1/admins');
    expect(list.body).toEqual([first.body]);

    const again = await own.delete(`/v1/admins/${second.body.adminId}`);
    expect(again.status).toBe(404);
    expect(again.body.message).toBe('ADMIN_NOT_FOUND');

    // Once removed, the e-mail may be registered afresh, as a new administrator.
    const reRegistered = await own.post('/v1/admins', { email: `second@${adminDomain}`, name: 'Second Again' });
    expect(reRegistered.status).toBe(201);
    expect(reRegistered.body.adminId).not.toBe(second.body.adminId);
  });

  it('names the code recipient for other services: the earliest-registered administrator past its waiting period', async () => {
    // Asked as payouts asks it.
    const registry = clientAs('payouts', walletRegistry.WalletRegistryService, {
      upstream: 'wallet-registry',
      logger: createLogger('admins-int-test', 'error'),
    });
    try {
      const { partner: own, http: ownHttp, adminDomain } = await partnerWithClient();
      await expect(registry.getCodeRecipient({ partnerId: own.partnerId })).rejects.toThrow(
        'NO_ADMINISTRATOR_REGISTERED',
      );
      const first = await ownHttp.post('/v1/admins', { email: `kim@${adminDomain}`, name: 'Kim' });
      const second = await ownHttp.post('/v1/admins', { email: `lee@${adminDomain}`, name: 'Lee' });
      expect(await registry.getCodeRecipient({ partnerId: own.partnerId })).toEqual({
        adminId: first.body.adminId,
        email: `kim@${adminDomain}`,
        maskedEmail: `k***@${adminDomain}`,
      });
      // Lee waits, so Kim stays; removing Lee leaves Kim the recipient.
      expect((await ownHttp.delete(`/v1/admins/${first.body.adminId}`)).body.message).toBe('ADMIN_LAST_CODE_RECIPIENT');
      expect((await ownHttp.delete(`/v1/admins/${second.body.adminId}`)).status).toBe(204);
      expect((await registry.getCodeRecipient({ partnerId: own.partnerId })).email).toBe(`kim@${adminDomain}`);
    } finally {
      registry.close();
    }
  });

  it('answers 404 ADMIN_NOT_FOUND for unknown, malformed and foreign ids', async () => {
    const other = await partnerWithClient();
    const foreign = await other.http.post('/v1/admins', { email: `someone@${other.adminDomain}`, name: 'Someone' });
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', foreign.body.adminId]) {
      const result = await http.delete(`/v1/admins/${id}`);
      expect({ id, status: result.status, message: result.body.message }).toEqual({
        id,
        status: 404,
        message: 'ADMIN_NOT_FOUND',
      });
    }
    expect((await other.http.get('/v1/admins')).body).toEqual([foreign.body]);
  });

  it('needs the wallets scope to write and read to list', async () => {
    const readOnly = await runOps<{ apiKey: string; signingSecret: string }>([
      'credential',
      'issue',
      '--partner',
      partner.partnerId,
      '--scopes',
      'read',
    ]);
    const reader = new RecordingClient(readOnly);
    const write = await reader.post('/v1/admins', { email: `scoped@${domain}`, name: 'Scoped' });
    expect(write.status).toBe(403);
    expect(write.body.message).toBe('INSUFFICIENT_SCOPE');
    expect((await reader.request('DELETE', '/v1/admins/00000000-0000-4000-8000-000000000000')).status).toBe(403);
    expect((await reader.get('/v1/admins')).status).toBe(200);
    const walletsOnly = await runOps<{ apiKey: string; signingSecret: string }>([
      'credential',
      'issue',
      '--partner',
      partner.partnerId,
      '--scopes',
      'wallets',
    ]);
    expect((await new RecordingClient(walletsOnly).get('/v1/admins')).status).toBe(403);
  });

  it('shows exactly the four documented fields', async () => {
    const list = await http.get('/v1/admins');
    expect(list.body.length).toBeGreaterThan(0);
    for (const admin of list.body) expect(Object.keys(admin).sort()).toEqual(['adminId', 'email', 'name', 'status']);
  });
});
