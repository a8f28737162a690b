/**
 * `secrets reseal`: after a sealing-key rotation (a new key put first in
 * CREDENTIAL_ENCRYPTION_KEY or WEBHOOK_SECRET_ENCRYPTION_KEY, rolled out to
 * every replica), moves the secrets each service keeps sealed at rest to its
 * new current key, a page of rows after another (the service walks its rows in
 * key order and says where to go on), until none is left under an older key.
 * Then the older key can leave the ring. No secret crosses the wire: each
 * service opens and seals inside itself. Safe to run again at any time.
 */
import type { common } from '@platform/proto';
import { EXIT_FAILED, EXIT_OK } from '../cli-error';
import { FlagReader, FlagValues } from '../flags';
import type { OpsClients } from '../clients';
import { defineCommand, valueFlag } from './command';

const SERVICES = ['gateway', 'webhook-delivery'] as const;
type SealingService = (typeof SERVICES)[number];
const BATCH_SIZE_DEFAULT = 500;
const BATCH_SIZE_MAX = 5_000;
/** A bound on the calls per service: 1,000 batches of 5,000 is far more secrets than the platform holds. */
export const RESEAL_CALLS_MAX = 1_000;

export interface SecretsResealInput {
  services: SealingService[];
  batchSize: number;
}

export interface ServiceReseal {
  service: SealingService;
  currentKeyId: string;
  resealed: number;
  remaining: number;
}

export interface SecretsResealResult {
  services: ServiceReseal[];
}

export function parseSecretsReseal(values: FlagValues): SecretsResealInput {
  const flags = new FlagReader(values);
  const service = flags.choice('service', ['all', ...SERVICES] as const, 'all');
  const batchSize = flags.integer('batch-size', { min: 1, max: BATCH_SIZE_MAX }, BATCH_SIZE_DEFAULT);
  flags.done();
  return { services: service === 'all' ? [...SERVICES] : [service], batchSize };
}

function caller(
  clients: OpsClients,
  service: SealingService,
): (request: common.ResealSecretsRequest) => Promise<common.ResealSecretsResponse> {
  return service === 'gateway'
    ? (request) => clients.partnerAdmin().resealSecrets(request)
    : (request) => clients.webhookAdmin().resealSecrets(request);
}

/**
 * Walks one service's sealed rows a page per call, passing each answer's cursor to the next
 * call, until nothing is left under another key. A pass ends when the service answers no
 * cursor (a service that predates paging never does: each of its calls is a pass). After a
 * pass that moved values while some remain (written under an older key meanwhile, by a
 * replica not yet rolled), another pass starts; a pass that moved nothing ends the run: what
 * remains does not open with the ring, and is reported.
 */
async function resealService(clients: OpsClients, service: SealingService, batchSize: number): Promise<ServiceReseal> {
  const call = caller(clients, service);
  let total = 0;
  let resealedThisPass = 0;
  let after = '';
  for (let calls = 0; calls < RESEAL_CALLS_MAX; calls += 1) {
    const answer = await call({ batchSize, after });
    total += answer.resealed;
    resealedThisPass += answer.resealed;
    const passEnded = !answer.nextAfter;
    if (answer.remaining === 0 || (passEnded && resealedThisPass === 0)) {
      return { service, currentKeyId: answer.currentKeyId, resealed: total, remaining: answer.remaining };
    }
    after = passEnded ? '' : answer.nextAfter;
    if (passEnded) resealedThisPass = 0;
  }
  throw new Error(`${service}: still resealing after ${RESEAL_CALLS_MAX} batches`);
}

export async function runSecretsReseal(input: SecretsResealInput, clients: OpsClients): Promise<SecretsResealResult> {
  const services: ServiceReseal[] = [];
  for (const service of input.services) services.push(await resealService(clients, service, input.batchSize));
  return { services };
}

export const secretsReseal = defineCommand<SecretsResealInput, SecretsResealResult>({
  name: 'secrets reseal',
  summary: "Move secrets sealed at rest to each service's current sealing key (after a key rotation).",
  synopsis: '[--service gateway|webhook-delivery|all] [--batch-size N]',
  flags: {
    service: valueFlag(`S: the service whose secrets move, ${SERVICES.join(', ')} or all (default: all)`),
    'batch-size': valueFlag(
      `N: secrets looked at per call, an integer from 1 to ${BATCH_SIZE_MAX} (default: ${BATCH_SIZE_DEFAULT})`,
    ),
  },
  parse: parseSecretsReseal,
  run: runSecretsReseal,
  describe: (result) =>
    result.services
      .map((entry) =>
        entry.remaining === 0
          ? `${entry.service}: ${entry.resealed} resealed; every secret is under key ${entry.currentKeyId}`
          : `${entry.service}: ${entry.resealed} resealed; ${entry.remaining} still under another key (they do not open with the ring: see the service's log)`,
      )
      .join('\n'),
  exitStatus: (result) => (result.services.every((entry) => entry.remaining === 0) ? EXIT_OK : EXIT_FAILED),
});
