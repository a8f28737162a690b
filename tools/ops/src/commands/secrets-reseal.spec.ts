// Proves `secrets reseal`: it asks both services (or the one named) batch after
// batch until nothing is left under an older key, stops when a batch moves
// nothing (values that open with no key are reported, not retried forever),
// exits 1 while anything is left, and refuses bad flags before any call.
import { CliError, EXIT_FAILED, EXIT_OK } from '../cli-error';
import type { OpsClients } from '../clients';
import { parseSecretsReseal, runSecretsReseal, secretsReseal } from './secrets-reseal';

type Answer = { currentKeyId: string; resealed: number; remaining: number };

function fakeClients(answers: Record<'gateway' | 'webhook-delivery', Answer[]>) {
  const calls: Array<{ service: string; batchSize: number }> = [];
  const next = (service: 'gateway' | 'webhook-delivery') => async (request: { batchSize: number }) => {
    calls.push({ service, batchSize: request.batchSize });
    const answer = answers[service].shift();
    if (!answer) throw new Error(`no more answers for ${service}`);
    return answer;
  };
  const clients = {
    partnerAdmin: () => ({ resealSecrets: next('gateway') }),
    webhookAdmin: () => ({ resealSecrets: next('webhook-delivery') }),
  } as unknown as OpsClients;
  return { clients, calls };
}

describe('secrets reseal', () => {
  it('takes both services and 500 a batch by default; one service and a batch size when named', () => {
    expect(parseSecretsReseal({})).toEqual({ services: ['gateway', 'webhook-delivery'], batchSize: 500 });
    expect(parseSecretsReseal({ service: 'webhook-delivery', 'batch-size': '20' })).toEqual({ services: ['webhook-delivery'], batchSize: 20 });
  });

  it('refuses an unknown service and a batch size out of bounds', () => {
    expect(() => parseSecretsReseal({ service: 'ledger' })).toThrow(CliError);
    expect(() => parseSecretsReseal({ 'batch-size': '0' })).toThrow(CliError);
    expect(() => parseSecretsReseal({ 'batch-size': '5001' })).toThrow(CliError);
  });

  it('calls each service until nothing is left, adding up what moved', async () => {
    const { clients, calls } = fakeClients({
      gateway: [{ currentKeyId: 'k2', resealed: 2, remaining: 1 }, { currentKeyId: 'k2', resealed: 1, remaining: 0 }],
      'webhook-delivery': [{ currentKeyId: 'w2', resealed: 0, remaining: 0 }],
    });
    const result = await runSecretsReseal({ services: ['gateway', 'webhook-delivery'], batchSize: 2 }, clients);
    expect(result.services).toEqual([
      { service: 'gateway', currentKeyId: 'k2', resealed: 3, remaining: 0 },
      { service: 'webhook-delivery', currentKeyId: 'w2', resealed: 0, remaining: 0 },
    ]);
    expect(calls).toEqual([{ service: 'gateway', batchSize: 2 }, { service: 'gateway', batchSize: 2 }, { service: 'webhook-delivery', batchSize: 2 }]);
    expect(secretsReseal.exitStatus?.(result)).toBe(EXIT_OK);
  });

  it('stops when a batch moves nothing but values remain, and exits 1 naming them', async () => {
    const { clients, calls } = fakeClients({ gateway: [{ currentKeyId: 'k2', resealed: 0, remaining: 4 }], 'webhook-delivery': [] });
    const result = await runSecretsReseal({ services: ['gateway'], batchSize: 500 }, clients);
    expect(calls).toHaveLength(1);
    expect(secretsReseal.exitStatus?.(result)).toBe(EXIT_FAILED);
    expect(secretsReseal.describe(result)).toMatch(/4 still under another key/);
  });
});
