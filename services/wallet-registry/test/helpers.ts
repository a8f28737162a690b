/** Shared tools of the wallet-registry integration specs. */
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tronAddressFromAccountId } from '@platform/chain';
import {
  createTestPartner,
  HttpResult,
  loadTestStack,
  PartnerHttpClient,
  TestPartner,
  waitFor,
} from '@platform/testing';

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Tests send bursts; a generous limit keeps the partner throttle out of them. */
export const TEST_RATE_LIMIT_PER_MINUTE = 100_000;

export function newTronAddress(): string {
  return tronAddressFromAccountId(randomBytes(20));
}

export function uniqueDomain(): string {
  return `t${randomUUID().slice(0, 8)}.example.com`;
}

export interface OutboxEntry {
  id: string;
  kind: string;
  to: string;
  subject: string;
  code: string | null;
  subjectType: string;
  subjectId: string;
  createdAt: string;
}

/**
 * A partner client that keeps the text of every response it received (apart
 * from the sandbox outbox, the one place a code may appear), so a spec can
 * prove no code leaked into any other answer.
 */
export class RecordingClient extends PartnerHttpClient {
  readonly transcript: string[] = [];

  override async request<T = any>(
    method: string,
    pathAndQuery: string,
    body?: unknown,
    options?: Parameters<PartnerHttpClient['request']>[3],
  ): Promise<HttpResult<T>> {
    const result = await super.request<T>(method, pathAndQuery, body, options);
    if (pathAndQuery !== '/v1/sandbox/outbox')
      this.transcript.push(`${method} ${pathAndQuery} ${result.status} ${result.text}`);
    return result;
  }

  delete<T = any>(path: string) {
    return this.request<T>('DELETE', path);
  }

  async outbox(): Promise<OutboxEntry[]> {
    const result = await this.get<OutboxEntry[]>('/v1/sandbox/outbox');
    if (result.status !== 200) throw new Error(`outbox answered ${result.status}: ${result.text}`);
    return result.body;
  }

  /** The newest code sent about `walletId`, once it is there. */
  async latestCode(walletId: string): Promise<{ code: string; entry: OutboxEntry }> {
    return waitFor(
      async () => {
        const entry = (await this.outbox()).find(
          (candidate) => candidate.subjectId === walletId && candidate.kind === 'wallet_approval',
        );
        return entry?.code ? { code: entry.code, entry } : undefined;
      },
      { what: `an approval code for ${walletId}` },
    );
  }

  async codesFor(walletId: string): Promise<OutboxEntry[]> {
    return (await this.outbox()).filter((entry) => entry.subjectId === walletId);
  }
}

export async function partnerWithClient(
  adminDomain = uniqueDomain(),
): Promise<{ partner: TestPartner; http: RecordingClient; adminDomain: string }> {
  const partner = await createTestPartner({ adminDomain, rateLimitPerMinute: TEST_RATE_LIMIT_PER_MINUTE });
  return { partner, http: new RecordingClient(partner), adminDomain };
}

/** A 6-digit code as a standalone token (not part of a longer number or id). */
function tokenPattern(code: string): RegExp {
  return new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`);
}

/** Texts (responses, log lines) in which any of `codes` appears as a token. */
export function leaksOf(codes: readonly string[], texts: readonly string[]): string[] {
  const patterns = codes.map(tokenPattern);
  return texts.filter((text) => patterns.some((pattern) => pattern.test(text)));
}

/** Every line of every service log of the test stack. */
export function serviceLogLines(): string[] {
  const { logsDir } = loadTestStack();
  return readdirSync(logsDir)
    .filter((name) => name.endsWith('.log'))
    .flatMap((name) =>
      readFileSync(join(logsDir, name), 'utf8')
        .split('\n')
        .map((line) => `${name}: ${line}`),
    );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
