// Proves, against the real stack, that the notifier sends once per
// idempotency key (repeats and concurrent repeats send nothing more; a key
// reused for another message is refused), renders every message kind, refuses
// malformed requests naming each field, sends the administrator notices
// without a code (and refuses one with a code), and that the sandbox outbox
// (GET /v1/sandbox/outbox through the gateway) lists only the calling
// partner's messages, newest first, addresses masked, codes readable, while no
// code ever reaches a service log.
import { randomInt, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PromiseClient } from '@platform/grpc';
import { UUID_PATTERN } from '@platform/ids';
import { createLogger } from '@platform/logger';
import { notifier } from '@platform/proto';
import { clientAs, createTestPartner, loadTestStack, PartnerHttpClient, runOps, TestPartner } from '@platform/testing';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const logger = createLogger('notifier-int-test', 'error');

const VARIABLES: Record<string, Record<string, string>> = {
  wallet_approval: {
    chain: 'tron',
    asset: 'USDT',
    address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    expiresAt: '2026-11-21T10:00:00.000Z',
  },
  transfer_confirmation: {
    amount: '1500.00',
    currency: 'KES',
    destination: '****5678',
    expiresAt: '2026-11-21T10:00:00.000Z',
  },
  usdt_send_confirmation: {
    amount: '25.000000',
    address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    expiresAt: '2026-11-21T10:00:00.000Z',
  },
  batch_confirmation: { itemCount: '3', expiresAt: '2026-11-21T10:00:00.000Z' },
};

function newCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

describe('notifier', () => {
  let client: PromiseClient<typeof notifier.NotifierService>;
  let partner: TestPartner;
  let http: PartnerHttpClient;
  const codes: string[] = [];

  beforeAll(async () => {
    // Sends as payouts does (the notifier admits payouts and wallet-registry).
    client = clientAs('payouts', notifier.NotifierService, { upstream: 'notifier', logger });
    partner = await createTestPartner({ rateLimitPerMinute: 10_000 });
    http = new PartnerHttpClient(partner);
  });

  afterAll(() => client.close());

  function request(overrides: Partial<notifier.SendMessageRequest> = {}): notifier.SendMessageRequest {
    const code = newCode();
    codes.push(code);
    return {
      idempotencyKey: `test:${randomUUID()}`,
      partnerId: partner.partnerId,
      kind: 'wallet_approval',
      recipient: 'jane.doe@example.com',
      subjectType: 'wallet',
      subjectId: randomUUID(),
      code,
      variables: VARIABLES.wallet_approval,
      ...overrides,
    };
  }

  const outbox = async () => {
    const result = await http.get('/v1/sandbox/outbox');
    expect(result.status).toBe(200);
    return result.body as Array<Record<string, unknown>>;
  };

  it('sends once per idempotency key, however often and concurrently it is asked', async () => {
    const message = request();
    const first = await client.sendMessage(message);
    expect(first).toEqual({
      messageId: expect.stringMatching(UUID_PATTERN),
      maskedRecipient: 'j***@example.com',
      replayed: false,
    });
    const repeats = await Promise.all(Array.from({ length: 5 }, () => client.sendMessage(message)));
    for (const repeat of repeats) expect(repeat).toEqual({ ...first, replayed: true });
    const entries = (await outbox()).filter((entry) => entry.subjectId === message.subjectId);
    expect(entries).toEqual([
      {
        id: first.messageId,
        kind: 'wallet_approval',
        to: 'j***@example.com',
        subject: expect.any(String),
        code: message.code,
        subjectType: 'wallet',
        subjectId: message.subjectId,
        createdAt: expect.stringMatching(ISO_MS),
      },
    ]);
  });

  it('sends once when the same new key arrives concurrently', async () => {
    const message = request();
    const results = await Promise.all(Array.from({ length: 6 }, () => client.sendMessage(message)));
    expect(results.filter((result) => !result.replayed)).toHaveLength(1);
    expect(new Set(results.map((result) => result.messageId)).size).toBe(1);
    expect((await outbox()).filter((entry) => entry.subjectId === message.subjectId)).toHaveLength(1);
  });

  it('refuses a key reused for another message', async () => {
    const message = request();
    await client.sendMessage(message);
    await expect(client.sendMessage({ ...message, subjectId: randomUUID() })).rejects.toThrow('IDEMPOTENCY_KEY_REUSED');
  });

  it('renders every kind and lists them newest first', async () => {
    const sent: string[] = [];
    for (const kind of Object.keys(VARIABLES)) {
      const message = request({
        kind,
        variables: VARIABLES[kind],
        subjectType: kind === 'wallet_approval' ? 'wallet' : 'transfer',
      });
      sent.push((await client.sendMessage(message)).messageId);
    }
    const ids = (await outbox()).map((entry) => entry.id);
    expect(ids.slice(0, sent.length)).toEqual([...sent].reverse());
  });

  it('sends a notice of an administrator change without a code, and refuses one with a code', async () => {
    const variables = {
      adminName: 'Nuru',
      adminEmail: 'nuru@example.com',
      changedAt: '2026-11-21T10:00:00.000Z',
      receivesCodesFrom: '2026-11-22T10:00:00.000Z',
    };
    const notice = request({ kind: 'administrator_added', subjectType: 'administrator', code: undefined, variables });
    const sent = await client.sendMessage(notice);
    const entries = (await outbox()).filter((entry) => entry.subjectId === notice.subjectId);
    expect(entries).toEqual([
      expect.objectContaining({
        id: sent.messageId,
        kind: 'administrator_added',
        code: null,
        subjectType: 'administrator',
      }),
    ]);
    await expect(
      client.sendMessage(request({ kind: 'administrator_removed', subjectType: 'administrator', variables })),
    ).rejects.toThrow('Validation failed on: code');
  });

  it('refuses malformed requests naming each field', async () => {
    await expect(client.sendMessage(request({ kind: 'sms' }))).rejects.toThrow('Validation failed on: kind');
    await expect(client.sendMessage(request({ recipient: 'jane@example.com\r\nBcc: x@evil.io' }))).rejects.toThrow(
      'Validation failed on: recipient',
    );
    await expect(client.sendMessage(request({ code: '12345' }))).rejects.toThrow('Validation failed on: code');
    await expect(client.sendMessage(request({ code: undefined }))).rejects.toThrow('Validation failed on: code');
    await expect(client.sendMessage(request({ variables: {} }))).rejects.toThrow('Validation failed on: variables');
    await expect(client.sendMessage(request({ idempotencyKey: '', partnerId: 'x' }))).rejects.toThrow(
      'Validation failed on: idempotencyKey, partnerId',
    );
  });

  it('shows each partner only its own messages', async () => {
    const other = await createTestPartner();
    const otherHttp = new PartnerHttpClient(other);
    const mine = request();
    await client.sendMessage(mine);
    const theirs = await otherHttp.get('/v1/sandbox/outbox');
    expect(theirs.status).toBe(200);
    expect(theirs.body).toEqual([]);
  });

  it('needs the sandbox scope', async () => {
    const readOnly = new PartnerHttpClient(await runReadCredential(partner.partnerId));
    const refused = await readOnly.get('/v1/sandbox/outbox');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('INSUFFICIENT_SCOPE');
  });

  it('never logs a code', () => {
    const { logsDir } = loadTestStack();
    const lines = readdirSync(logsDir)
      .filter((name) => name.endsWith('.log'))
      .flatMap((name) => readFileSync(join(logsDir, name), 'utf8').split('\n'));
    const leaks = lines.filter((line) =>
      codes.some((code) => new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`).test(line)),
    );
    expect(leaks).toEqual([]);
  });
});

function runReadCredential(partnerId: string): Promise<{ apiKey: string; signingSecret: string }> {
  return runOps(['credential', 'issue', '--partner', partnerId, '--scopes', 'read']);
}
