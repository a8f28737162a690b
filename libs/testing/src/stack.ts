import { readFileSync } from 'node:fs';

export interface TestStack {
  profile: string;
  gatewayUrl: string;
  grpc: Record<string, string>;
  tlsDir: string;
  logsDir: string;
  databases: Record<string, string>;
  redisUrl: string;
  amqpUrl: string;
}

let cached: TestStack | null = null;

/** The running test stack, as written by scripts/test.mjs. */
export function loadTestStack(): TestStack {
  if (cached) return cached;
  const file = process.env.TEST_STACK_FILE;
  if (!file) throw new Error('TEST_STACK_FILE is not set: integration tests run through `npm test`');
  cached = JSON.parse(readFileSync(file, 'utf8')) as TestStack;
  return cached;
}
