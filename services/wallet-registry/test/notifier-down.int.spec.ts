// Proves the chosen behaviour when the notifier cannot take a code: the
// registration answers SERVICE_UNAVAILABLE and nothing half-done stays
// visible (no wallet, no code), so a retry starts afresh. It runs a second
// wallet-registry process on the test stack's database whose notifier address
// points at a closed port (ports 23000-23999), and reads the outcome through
// the real gateway.
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { join } from 'node:path';
import { checkHealth, PromiseClient } from '@platform/grpc';
import { createLogger } from '@platform/logger';
import { walletRegistry } from '@platform/proto';
import { loadTestStack, routedClient, serviceEnvironment, stackIdentity, waitFor } from '@platform/testing';
import { WALLET_REGISTRY_ACCESS } from '../src/grpc/access';
import { newTronAddress, partnerWithClient } from './helpers';

const logger = createLogger('wallet-registry-int-test', 'error');
const PORT_BASE = 23_000;
const PORTS_PER_SLOT = 100;
const HEALTH_TIMEOUT_MS = 500;
const STOP_GRACE_MS = 5_000;

describe('registration while the notifier is down', () => {
  let child: ChildProcess;
  let address: string;
  let client: PromiseClient<typeof walletRegistry.WalletRegistryService>;

  beforeAll(async () => {
    const slotBase = PORT_BASE + (Number(process.env.TEST_STACK_SLOT ?? 0) % 10) * PORTS_PER_SLOT;
    const grpcPort = slotBase + randomInt(0, 50);
    const closedPort = slotBase + 50 + randomInt(0, 50);
    address = `127.0.0.1:${grpcPort}`;
    const own = serviceEnvironment('wallet-registry');
    child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'main.js')], {
      env: {
        PATH: process.env.PATH,
        PLATFORM_MODE: 'sandbox',
        LOG_LEVEL: 'error',
        TLS_CA_FILE: own.TLS_CA_FILE,
        TLS_CERT_FILE: own.TLS_CERT_FILE,
        TLS_KEY_FILE: own.TLS_KEY_FILE,
        DATABASE_URL: (loadTestStack().databases as Record<string, string>)['wallet-registry'],
        GRPC_PORT: String(grpcPort),
        NOTIFIER_GRPC_ADDR: `127.0.0.1:${closedPort}`,
        NOTIFIER_DEADLINE_MS: '1000',
        CODE_HASH_KEY: randomBytes(32).toString('hex'),
      },
      stdio: 'ignore',
    });
    const health = stackIdentity('ops').client('wallet-registry');
    await waitFor(() => checkHealth(address, HEALTH_TIMEOUT_MS, health), {
      timeoutMs: 20_000,
      what: 'the second wallet-registry to serve',
    });
    client = routedClient(walletRegistry.WalletRegistryService, WALLET_REGISTRY_ACCESS.PARTNER, {
      upstream: 'wallet-registry',
      address,
      logger,
    });
  });

  afterAll(async () => {
    client?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('answers SERVICE_UNAVAILABLE and leaves no wallet and no code; a later registration starts afresh', async () => {
    const { partner, http, adminDomain } = await partnerWithClient();
    expect((await http.post('/v1/admins', { email: `ops@${adminDomain}`, name: 'Ops' })).status).toBe(201);
    // The outbox also gets the notice of the administrator's addition; only the wallet's messages count here.
    const walletMessages = async () =>
      ((await http.get('/v1/sandbox/outbox')).body as Array<{ subjectType: string }>).filter(
        (entry) => entry.subjectType === 'wallet',
      );
    const tron = newTronAddress();
    await expect(
      client.registerWallet({ partnerId: partner.partnerId, chain: 'tron', asset: 'USDT', address: tron, label: '' }),
    ).rejects.toThrow('SERVICE_UNAVAILABLE');
    expect((await http.get('/v1/wallets')).body).toEqual([]);
    expect(await walletMessages()).toEqual([]);

    const retried = await http.post('/v1/wallets', { chain: 'tron', asset: 'USDT', address: tron });
    expect(retried.status).toBe(201);
    expect(await walletMessages()).toHaveLength(1);
  });
});
