// Proves `npm run restart -- <service>` (scripts/stack.mjs restart, here against
// the test stack) replaces every replica of that service, one at a time, and
// touches no other service: each of its replicas runs under a new process and
// answers SERVING, every other service keeps its processes. Runs in the serial
// `faults` project, alone.
// With two or more replicas (STACK_REPLICAS=2 npm test) it proves the restart is
// invisible to partners too: under steady reads that cross the restarted
// service (balances through ledger, orders through trading; the gateway's
// replicas share the partner port), no answer is a 5xx and no connection fails. With one replica the service is away while it
// restarts, so that part cannot hold and is not asserted.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { createTestPartner, loadTestStack, PartnerHttpClient } from '@platform/testing';
import { sleep } from '../test/support';

const REPO_ROOT = join(__dirname, '..', '..', '..');
/** The restart builds the one service (turbo, mostly from cache), migrates it, and drains and starts each replica. */
const RESTART_TIMEOUT_MS = 180_000;
const READERS = 4;
const READ_PAUSE_MS = 20;
const READS = ['/v1/balances', '/v1/orders'] as const;
const PARTNER_REQUESTS_PER_MINUTE = 50_000;
const FAULT_TEST_TIMEOUT_MS = 2 * RESTART_TIMEOUT_MS + 60_000;

interface Tally {
  answers: number;
  durationsMs: number[];
  serverErrors: string[];
  connectionErrors: string[];
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

function restart(service: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'scripts', 'stack.mjs'), 'restart', service],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, STACK_PROFILE: 'test' },
        timeout: RESTART_TIMEOUT_MS,
      },
      (error, stdout, stderr) =>
        error ? reject(new Error(`restart ${service} failed: ${stderr || stdout || error.message}`)) : resolve(stdout),
    );
  });
}

function statusJson(): Promise<Record<string, Array<{ replica: number; pid: number | null; running: boolean }>>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'scripts', 'stack.mjs'), 'status', '--json'],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, STACK_PROFILE: 'test' },
        timeout: 60_000,
      },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout).services)),
    );
  });
}

/** Reads in READERS loops until `stop` says so, counting 5xx answers and failed connections. */
function readUnder(client: PartnerHttpClient, stop: () => boolean): Promise<Tally> {
  const tally: Tally = { answers: 0, durationsMs: [], serverErrors: [], connectionErrors: [] };
  const reader = async (index: number) => {
    for (let read = index; !stop(); read += 1) {
      const path = READS[read % READS.length];
      const sentAtMs = Date.now();
      try {
        const answer = await client.get(path);
        tally.answers += 1;
        tally.durationsMs.push(Date.now() - sentAtMs);
        if (answer.status >= 500) tally.serverErrors.push(`${path} ${answer.status} ${answer.text.slice(0, 120)}`);
      } catch (error) {
        const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
        tally.connectionErrors.push(
          `${path} ${(error as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''} at ${new Date().toISOString()}`,
        );
      }
      await sleep(READ_PAUSE_MS);
    }
  };
  return Promise.all(Array.from({ length: READERS }, (_, index) => reader(index))).then(() => tally);
}

describe.each(['trading', 'ledger', 'gateway'])('npm run restart -- %s', (service) => {
  it(
    'replaces each of its replicas, leaves the other services alone, and (with two replicas) no partner notices',
    async () => {
      const replicaCount = loadTestStack().replicas?.[service]?.length ?? 1;
      const partner = await createTestPartner({ rateLimitPerMinute: PARTNER_REQUESTS_PER_MINUTE });
      const client = new PartnerHttpClient(partner);
      const before = await statusJson();
      expect(before[service].filter((replica) => replica.running)).toHaveLength(replicaCount);

      let restarting = true;
      const reads = readUnder(client, () => !restarting);
      const output = await restart(service).finally(() => {
        restarting = false;
      });
      const tally = await reads;
      const after = await statusJson();
      console.log(
        `${service} restarted (${replicaCount} replicas): ${tally.answers} reads, ${tally.serverErrors.length} 5xx, ` +
          `${tally.connectionErrors.length} connection errors, p99 ${percentile(tally.durationsMs, 0.99)} ms`,
      );

      expect(output).toContain(`${service} stopped and started`);
      for (const [index, replica] of after[service].entries()) {
        expect({ replica: replica.replica, running: replica.running }).toEqual({
          replica: replica.replica,
          running: true,
        });
        expect(replica.pid).not.toBe(before[service][index].pid);
      }
      for (const other of Object.keys(before).filter((name) => name !== service)) {
        expect({ other, pids: after[other].map((replica) => replica.pid) }).toEqual({
          other,
          pids: before[other].map((replica) => replica.pid),
        });
      }
      expect(tally.answers).toBeGreaterThan(0);
      if (replicaCount >= 2) {
        expect(tally.serverErrors).toEqual([]);
        expect(tally.connectionErrors).toEqual([]);
      }
    },
    FAULT_TEST_TIMEOUT_MS,
  );
});
