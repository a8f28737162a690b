/**
 * The idempotency of creates (transfers, USDT sends; contract decisions
 * section 5). The key is claimed by inserting a 'creating' row under a unique
 * index, so of concurrent twins exactly one claims it; the others wait for
 * its create to finish and answer its resource (replayed), or claim the key
 * again when the winner's create was refused (its row removed). The same key
 * with another body is IDEMPOTENCY_KEY_REUSED.
 */
import { AppError } from '@platform/errors';
import { sleep } from '@platform/persistence';

/** How long a replay waits for its twin's create to finish (inside the gateway's 5 s deadline), and how often it looks. */
const TWIN_WAIT_MS_MAX = 4_000;
const TWIN_POLL_MS = 100;
/** A key freed by a refused twin is claimed again at most this many times. */
const CLAIM_ATTEMPTS_MAX = 3;

export interface Claimable {
  requestHash: string;
  status: string;
}

export interface IdempotentCreate<R extends Claimable> {
  findByKey(): Promise<R | null>;
  reread(existing: R): Promise<R | null>;
  /** Refusals that depend on the body alone, before a key is claimed. */
  precheck(): void;
  claim(): Promise<R | null>;
  create(claimed: R): Promise<R>;
}

export async function createIdempotently<R extends Claimable>(requestHash: string, steps: IdempotentCreate<R>): Promise<{ resource: R; replayed: boolean }> {
  for (let attempt = 1; attempt <= CLAIM_ATTEMPTS_MAX; attempt += 1) {
    const existing = await steps.findByKey();
    if (existing) {
      if (existing.requestHash !== requestHash) throw new AppError('IDEMPOTENCY_KEY_REUSED');
      const finished = await waitForTwin(existing, steps);
      if (finished) return { resource: finished, replayed: true };
      continue;
    }
    steps.precheck();
    const claimed = await steps.claim();
    if (claimed) return { resource: await steps.create(claimed), replayed: false };
  }
  throw new AppError('SERVICE_UNAVAILABLE');
}

/** The twin's resource once its create has finished; null when its create was refused and the key is free again. */
async function waitForTwin<R extends Claimable>(existing: R, steps: IdempotentCreate<R>): Promise<R | null> {
  const deadline = Date.now() + TWIN_WAIT_MS_MAX;
  let current: R | null = existing;
  while (current && current.status === 'creating') {
    if (Date.now() > deadline) throw new AppError('SERVICE_UNAVAILABLE');
    await sleep(TWIN_POLL_MS);
    current = await steps.reread(existing);
  }
  return current;
}
