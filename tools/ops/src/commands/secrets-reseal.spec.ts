// Proves `secrets reseal`: it asks both services (or the one named) page after
// page, passing each answer's cursor to the next call, until nothing is left under
// an older key; a pass that moved values while some remain is followed by another
// from the first row, and a pass that moved nothing ends the run (values that open
// with no key are reported, not retried forever); a service that does not page
// (no cursor) is called as before, each call a pass; it exits 1 while anything is
// left, and refuses bad flags before any call.
import { CliError, EXIT_FAILED, EXIT_OK } from '../cli-error';
import type { OpsClients } from '../clients';
import { parseSecretsReseal, runSecretsReseal, secretsReseal } from './secrets-reseal';

type Answer = { currentKeyId: string; resealed: number; remaining: number; nextAfter?: string };

function fakeClients(answers: Record<'gateway' | 'webhook-delivery', Answer[]>) {
  const calls: Array<{ service: string; batchSize: number; after?: string }> = [];
  const next = (service: 'gateway' | 'webhook-delivery') => async (request: { batchSize: number; after: string }) => {
    calls.push({ service, batchSize: request.batchSize, ...(request.after ? { after: request.after } : {}) });
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
    expect(parseSecretsReseal({ service: 'webhook-delivery', 'batch-size': '20' })).toEqual({
      services: ['webhook-delivery'],
      batchSize: 20,
    });
  });

  it('refuses an unknown service and a batch size out of bounds', () => {
    expect(() => parseSecretsReseal({ service: 'ledger' })).toThrow(CliError);
    expect(() => parseSecretsReseal({ 'batch-size': '0' })).toThrow(CliError);
    expect(() => parseSecretsReseal({ 'batch-size': '5001' })).toThrow(CliError);
  });

  it('calls a service that does not page until nothing is left, adding up what moved', async () => {
    const { clients, calls } = fakeClients({
      gateway: [
        { currentKeyId: 'k2', resealed: 2, remaining: 1 },
        { currentKeyId: 'k2', resealed: 1, remaining: 0 },
      ],
      'webhook-delivery': [{ currentKeyId: 'w2', resealed: 0, remaining: 0 }],
    });
    const result = await runSecretsReseal({ services: ['gateway', 'webhook-delivery'], batchSize: 2 }, clients);
    expect(result.services).toEqual([
      { service: 'gateway', currentKeyId: 'k2', resealed: 3, remaining: 0 },
      { service: 'webhook-delivery', currentKeyId: 'w2', resealed: 0, remaining: 0 },
    ]);
    expect(calls).toEqual([
      { service: 'gateway', batchSize: 2 },
      { service: 'gateway', batchSize: 2 },
      { service: 'webhook-delivery', batchSize: 2 },
    ]);
    expect(secretsReseal.exitStatus?.(result)).toBe(EXIT_OK);
  });

  it('follows the cursor page after page, and starts another pass only after one that moved values', async () => {
    const { clients, calls } = fakeClients({
      gateway: [
        { currentKeyId: 'k2', resealed: 2, remaining: 5, nextAfter: '0:b' },
        { currentKeyId: 'k2', resealed: 0, remaining: 5, nextAfter: '0:d' },
        { currentKeyId: 'k2', resealed: 1, remaining: 4, nextAfter: '' },
        // A second pass moves one value written meanwhile; a third moves nothing: the three left do not open.
        { currentKeyId: 'k2', resealed: 1, remaining: 3, nextAfter: '0:c' },
        { currentKeyId: 'k2', resealed: 0, remaining: 3, nextAfter: '' },
        { currentKeyId: 'k2', resealed: 0, remaining: 3, nextAfter: '' },
      ],
      'webhook-delivery': [],
    });
    const result = await runSecretsReseal({ services: ['gateway'], batchSize: 2 }, clients);
    expect(calls).toEqual([
      { service: 'gateway', batchSize: 2 },
      { service: 'gateway', batchSize: 2, after: '0:b' },
      { service: 'gateway', batchSize: 2, after: '0:d' },
      { service: 'gateway', batchSize: 2 },
      { service: 'gateway', batchSize: 2, after: '0:c' },
      { service: 'gateway', batchSize: 2 },
    ]);
    expect(result.services).toEqual([{ service: 'gateway', currentKeyId: 'k2', resealed: 4, remaining: 3 }]);
    expect(secretsReseal.exitStatus?.(result)).toBe(EXIT_FAILED);
  });

  it('stops mid-pass once nothing is left', async () => {
    const { clients, calls } = fakeClients({
      gateway: [{ currentKeyId: 'k2', resealed: 2, remaining: 0, nextAfter: '0:b' }],
      'webhook-delivery': [],
    });
    expect((await runSecretsReseal({ services: ['gateway'], batchSize: 2 }, clients)).services[0].remaining).toBe(0);
    expect(calls).toHaveLength(1);
  });

  it('stops when a batch moves nothing but values remain, and exits 1 naming them', async () => {
    const { clients, calls } = fakeClients({
      gateway: [{ currentKeyId: 'k2', resealed: 0, remaining: 4 }],
      'webhook-delivery': [],
    });
    const result = await runSecretsReseal({ services: ['gateway'], batchSize: 500 }, clients);
    expect(calls).toHaveLength(1);
    expect(secretsReseal.exitStatus?.(result)).toBe(EXIT_FAILED);
    expect(secretsReseal.describe(result)).toMatch(/4 still under another key/);
  });
});
