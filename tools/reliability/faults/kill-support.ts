/**
 * Shared steps of the SIGKILL specs: fire spaced attempts, kill a service once
 * some of them are committed, check what was answered meanwhile, and retry
 * until each attempt is answered after the restart. Every wait is bounded.
 */
import { HttpsReceiver, loadTestStack, stackInfra, startHttpsReceiver, waitFor } from '@platform/testing';
import { expectEnvelope, sleep } from '../test/support';
import { Attempt, endPools, MoneyPools, moneyPools, statusOf } from './money-support';

/** Attempts start this far apart, so the kill lands among them. */
const ATTEMPT_SPACING_MS = 100;
const COMMIT_POLL_MS = 10;
const COMMIT_WAIT_MS = 20_000;
export const RECOVERY_TIMEOUT_MS = 60_000;
export const RECOVERY_POLL_MS = 250;

/** What a kill spec reads and listens with: read-only pools of the stack's databases and a webhook receiver. */
export interface KillStand {
  pools: MoneyPools;
  receiver: HttpsReceiver;
}

/**
 * The file's stand, opened before its tests and closed after them, once whatever a
 * failed test left killed is started again (a no-op when every test ran to its end).
 * Its fields are set when the file's tests run, not when this returns.
 */
export function killStand(): KillStand {
  const stand = {} as KillStand;
  beforeAll(async () => {
    stand.pools = moneyPools();
    stand.receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await stackInfra.startServices();
    await stand.receiver?.close();
    await endPools(stand.pools);
  });
  return stand;
}

/**
 * Finds the pid of every replica of `service` now and returns the kill of them
 * all: with several (STACK_REPLICAS=2) one killed alone would leave the service
 * up, and a spec about the service dying would prove nothing.
 */
export async function armKillEveryReplica(service: string): Promise<() => void> {
  const replicas = loadTestStack().replicas?.[service]?.length ?? 1;
  const kills = await Promise.all(
    Array.from({ length: replicas }, (_, index) => stackInfra.armKill(service, index + 1)),
  );
  return () => kills.forEach((killReplica) => killReplica());
}

/** SIGKILL to every replica of `service` (the service is down until stackInfra.startServices()). */
export async function killEveryReplica(service: string): Promise<void> {
  (await armKillEveryReplica(service))();
}

/**
 * Starts `count` attempts ATTEMPT_SPACING_MS apart, SIGKILLs `service` once
 * `committed()` reaches `committedBeforeKill`, and resolves to every answer
 * (each attempt ends on its own: an answer, a 503, or a transport failure).
 */
export async function killAmong(
  service: string,
  count: number,
  attemptAt: (index: number) => Promise<Attempt>,
  committed: () => Promise<number>,
  committedBeforeKill: number,
): Promise<Attempt[]> {
  const kill = await armKillEveryReplica(service);
  const attempts = Array.from({ length: count }, (_, index) =>
    sleep(index * ATTEMPT_SPACING_MS).then(() => attemptAt(index)),
  );
  await waitFor(async () => ((await committed()) >= committedBeforeKill ? true : undefined), {
    timeoutMs: COMMIT_WAIT_MS,
    intervalMs: COMMIT_POLL_MS,
    what: `${committedBeforeKill} committed before killing ${service}`,
  });
  kill();
  const answers = await Promise.all(attempts);
  console.log(`${service} killed: answers before the restart: ${answers.map(statusOf).join(', ')}`);
  return answers;
}

/**
 * Each answer given while `service` (not the gateway) died: accepted, or a clean
 * 503 envelope. The gateway stays up, so no attempt may lose its connection.
 */
export function expectCleanAnswers(answers: Attempt[], service: string, accepted: readonly number[]): void {
  for (const [index, answer] of answers.entries()) {
    if ('failed' in answer)
      expect({ index, service, answer: statusOf(answer) }).toEqual({ index, service, answer: 'an HTTP answer' });
    else if (!accepted.includes(answer.status)) {
      expect({ index, status: answer.status }).toEqual({ index, status: 503 });
      expectEnvelope(answer, `attempt ${index} while ${service} died`);
    }
  }
  // The kill landed among the attempts: not every one of them was accepted.
  expect(answers.filter((answer) => !('failed' in answer) && accepted.includes(answer.status)).length).toBeLessThan(
    answers.length,
  );
}

/** Retries `attempt` until it is accepted; resolves to the accepted answer. */
export function retryUntilAccepted(what: string, attempt: () => Promise<Attempt>, accepted: readonly number[]) {
  return waitFor(
    async () => {
      const answer = await attempt();
      return !('failed' in answer) && accepted.includes(answer.status) ? answer : undefined;
    },
    { timeoutMs: RECOVERY_TIMEOUT_MS, intervalMs: RECOVERY_POLL_MS, what: `${what} after the restart` },
  );
}
