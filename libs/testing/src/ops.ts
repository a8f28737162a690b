import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { recordSecretsIn, recordSensitive } from './sensitive';
import { loadTestStack } from './stack';

const REPO_ROOT = join(__dirname, '..', '..', '..');
const OPS_TIMEOUT_MS = 30_000;

/** Runs `ops <args> --json` against the test stack and returns its JSON output; `env` adds to its environment (e.g. OPS_OPERATOR). */
export function runOps<T = Record<string, unknown>>(
  args: string[],
  options: { env?: Record<string, string> } = {},
): Promise<T> {
  const stackFile = process.env.TEST_STACK_FILE;
  loadTestStack();
  // A secret handed to ops (`webhook set --secret`) must never reach a log either.
  const secretIndex = args.indexOf('--secret');
  if (secretIndex >= 0) recordSensitive(args[secretIndex + 1]);
  const startedAtMs = Date.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'tools/ops/dist/main.js'), ...args, '--json'],
      {
        env: { ...process.env, ...options.env, OPS_STACK_FILE: stackFile },
        timeout: OPS_TIMEOUT_MS,
      },
      (error, stdout, stderr) => {
        if (error) {
          // How it ended tells a slow or lingering process (killed at the timeout) from a failed command.
          const ended = error.killed
            ? `killed by ${error.signal} at the ${OPS_TIMEOUT_MS} ms timeout`
            : `exit ${error.code}`;
          const tookMs = Date.now() - startedAtMs;
          reject(
            new Error(
              `ops ${args.join(' ')} failed (${ended}, after ${tookMs} ms): ${stderr || stdout || error.message}`,
            ),
          );
          return;
        }
        try {
          const answer = JSON.parse(stdout) as T;
          // Signing and webhook secrets the tests receive must never reach a log (scripts/test.mjs scans).
          recordSecretsIn(answer);
          resolve(answer);
        } catch {
          reject(new Error(`ops ${args.join(' ')} printed non-JSON: ${stdout}`));
        }
      },
    );
  });
}

/** A fresh webhook signing secret in the form partners are given (`whsec_` and 48 hex digits). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('hex')}`;
}

/**
 * Points the partner's webhooks at `url` (a test receiver) with `secret` (a fresh one by
 * default), as an operator does; resolves to the secret, for checking signatures.
 */
export async function setPartnerWebhook(partnerId: string, url: string, secret = newWebhookSecret()): Promise<string> {
  await runOps(['webhook', 'set', '--partner', partnerId, '--url', url, '--secret', secret]);
  return secret;
}

export interface TestPartner {
  partnerId: string;
  apiKey: string;
  signingSecret: string;
  kesAccountId: string;
  usdtDepositAddress: string;
}

export interface CreatePartnerOptions {
  name?: string;
  adminDomain?: string;
  rateLimitPerMinute?: number;
  extraArgs?: string[];
}

/** A fresh partner per test file keeps tests independent (own rate limit, balances, rates). */
export function createTestPartner(options: CreatePartnerOptions = {}): Promise<TestPartner> {
  const args = [
    'partner',
    'create',
    '--name',
    options.name ?? `Test ${randomUUID().slice(0, 8)}`,
    '--admin-domain',
    options.adminDomain ?? 'example.com',
  ];
  if (options.rateLimitPerMinute) args.push('--rate-limit-per-minute', String(options.rateLimitPerMinute));
  return runOps<TestPartner>([...args, ...(options.extraArgs ?? [])]);
}
