/**
 * The one way a create is made idempotent on a caller's key. The caller's
 * table stores, under a unique key, the row with the hash of the request that
 * made it; this helper answers:
 * - a first request: the key is claimed (the row inserted) and the create runs;
 * - a repeat (same key, same hash): the original row, `replayed: true`;
 * - another request under the same key: `reusedError` (each service keeps the
 *   stable code it has always answered: IDEMPOTENCY_KEY_REUSED by default,
 *   LEDGER_ID_REUSED in the ledger, PAYOUT_INSTRUCTION_ID_REUSED for payout
 *   instructions);
 * - concurrent repeats: one result. Of two claims exactly one wins (the
 *   unique key decides, or a lock the caller holds); the loser finds the
 *   winner's row and replays it. A create that runs after its claim commits
 *   (a saga of remote calls) marks its row `pending` until done: repeats wait
 *   for it, bounded, and claim the key again if the winner gave it up (its
 *   row deleted on a refusal).
 * - a twin that gave up: a create whose owner failed on an unreachable
 *   dependency (and could not undo its steps) releases its claim, and a
 *   replica that died leaves its claim's lease to pass. A repeat that finds
 *   such a row takes it over (`takeOver`: undoes what the abandoned attempt
 *   did and frees the key) and claims the key afresh, instead of answering
 *   503 until a background sweep gets there.
 *
 * Adopting it in a use case (the key column unique, a request_hash column):
 *
 *   const { resource, replayed } = await claimIdempotently({
 *     requestHash: sha256Hex(canonicalRequest),
 *     // The row stored under the key, or null.
 *     find: () => orders.findByReference(manager, partnerId, partnerReference),
 *     // Inserts under the key; null when the key is taken (INSERT … ON CONFLICT DO NOTHING
 *     // RETURNING, or a caught unique violation of the key's constraint).
 *     claim: () => orders.insertUnlessTaken(manager, newOrder),
 *     // Optional: the work done after the claim; it answers the finished row.
 *     create: (claimed) => runSaga(claimed),
 *     // Optional: a claimed row whose create is still running (status 'creating').
 *     pending: (row) => row.status === 'creating',
 *     reread: (row) => orders.findById(manager, row.orderId),
 *   });
 *
 * Inside a transaction that already serialises the key (an advisory lock on
 * the id, as the ledger takes), `claim` never answers null and no row is
 * ever pending: the helper then only compares the hash and replays.
 */
import { AppError, ErrorCode } from '@platform/errors';
import { sleep } from './data-source';

/** How long a repeat waits for its twin's create to finish (inside the gateway's 5 s deadline), and how often it looks. */
export const TWIN_WAIT_MS_MAX = 4_000;
export const TWIN_POLL_MS = 100;
/** A key given up by a refused twin, or found taken and then gone, is claimed again at most this many times. */
export const CLAIM_ATTEMPTS_MAX = 3;

export interface IdempotentRow {
  /** The hash of the request that made the row; a repeat must bring the same. */
  requestHash: string;
}

export interface IdempotentCreate<R extends IdempotentRow> {
  requestHash: string;
  find(): Promise<R | null>;
  /** Inserts the row under the key; null when another request holds the key. */
  claim(): Promise<R | null>;
  /** The work after the claim, answering the finished row; without it the claimed row is the result. */
  create?(claimed: R): Promise<R>;
  /**
   * Refusals made before a key is claimed: a repeat is answered first, and a
   * refused request claims nothing. It may read (a create whose refusals come
   * after the repeat check in the caller's contract); it runs once per claim
   * attempt, so work it prepares is kept by the caller, not redone.
   */
  precheck?(): void | Promise<void>;
  /** True while the row's create is still running; repeats wait for it. Needs `reread`. */
  pending?(row: R): boolean;
  /** The row again, or null once its create was refused and the key given up. */
  reread?(row: R): Promise<R | null>;
  /**
   * A pending row whose owner gave it up (its claim released, or its lease
   * passed): undoes what the attempt did and frees the key, answering true;
   * false while the owner still holds the claim. It must decide atomically
   * (one taker of many), and be safe beside the owner's own recovery.
   */
  takeOver?(row: R): Promise<boolean>;
  /** The stable code a different request under the same key answers. */
  reusedError?: ErrorCode;
  /** Bound on the wait for a pending twin; TWIN_WAIT_MS_MAX by default. */
  twinWaitMsMax?: number;
}

export async function claimIdempotently<R extends IdempotentRow>(
  create: IdempotentCreate<R>,
): Promise<{ resource: R; replayed: boolean }> {
  for (let attempt = 1; attempt <= CLAIM_ATTEMPTS_MAX; attempt += 1) {
    const existing = await create.find();
    if (existing) {
      if (existing.requestHash !== create.requestHash)
        throw new AppError(create.reusedError ?? 'IDEMPOTENCY_KEY_REUSED');
      const finished = await waitForTwin(existing, create);
      if (finished) return { resource: finished, replayed: true };
      continue; // given up, or taken over: the key is free to claim again
    }
    await create.precheck?.();
    const claimed = await create.claim();
    if (claimed) return { resource: create.create ? await create.create(claimed) : claimed, replayed: false };
  }
  throw new AppError('SERVICE_UNAVAILABLE');
}

/**
 * The twin's row once its create has finished; null when its create was
 * refused, or abandoned and taken over here, and the key is free again.
 */
async function waitForTwin<R extends IdempotentRow>(existing: R, create: IdempotentCreate<R>): Promise<R | null> {
  if (!create.pending || !create.reread) return existing;
  const deadline = Date.now() + (create.twinWaitMsMax ?? TWIN_WAIT_MS_MAX);
  let current: R | null = existing;
  while (current && create.pending(current)) {
    if (create.takeOver && (await create.takeOver(current))) return null;
    if (Date.now() > deadline) throw new AppError('SERVICE_UNAVAILABLE');
    await sleep(TWIN_POLL_MS);
    current = await create.reread(existing);
  }
  return current;
}
