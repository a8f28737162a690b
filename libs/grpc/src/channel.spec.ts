// Proves the channel settings every client shares: the address forms a client
// accepts (and turns into grpc-js targets), a reconnect backoff that brings a
// ready replica back within a second, and a retry table naming only RPCs that
// exist, kept out of the partner creates.
import * as proto from '@platform/proto';
import {
  channelOptions,
  channelTarget,
  FLOW_CONTROL_WINDOW_BYTES,
  RECONNECT_BACKOFF_MAX_MS,
  serviceConfig,
} from './channel';
import { serverOptions } from './server';
import { RETRYABLE_METHODS } from './retryable-methods';

/** grpc-js adds up to 20 % of jitter to every backoff step. */
const JITTER_FRACTION = 0.2;

function everyRpcPath(): Set<string> {
  const paths = new Set<string>();
  for (const namespace of Object.values(proto) as Array<Record<string, unknown>>) {
    for (const exported of Object.values(namespace)) {
      if (exported === null || typeof exported !== 'object') continue;
      for (const method of Object.values(exported as Record<string, unknown>)) {
        const path = (method as { path?: unknown } | null)?.path;
        if (typeof path === 'string' && path.startsWith('/')) paths.add(path);
      }
    }
  }
  return paths;
}

describe('channelTarget', () => {
  it.each([
    ['ledger:7002', 'ledger:7002'],
    ['127.0.0.1:7002', '127.0.0.1:7002'],
    ['127.0.0.1:7002,127.0.0.1:7012', 'ipv4:127.0.0.1:7002,127.0.0.1:7012'],
    ['dns:///ledger-headless:7002', 'dns:///ledger-headless:7002'],
    [
      'dns:///ledger-headless.payments.svc.cluster.local:7002',
      'dns:///ledger-headless.payments.svc.cluster.local:7002',
    ],
  ])('turns %s into %s', (address, target) => {
    expect(channelTarget(address)).toBe(target);
  });

  it.each(['ledger', 'http://ledger:7002', 'ledger:7002,ledger-2:7002', '127.0.0.1:7002,', 'dns://ledger:7002'])(
    'refuses %s',
    (address) => {
      expect(() => channelTarget(address)).toThrow(RangeError);
    },
  );
});

describe('channelOptions', () => {
  it('caps the reconnect backoff so a ready replica is connected to within a second, jitter included', () => {
    const options = channelOptions('ledger');
    expect(options['grpc.max_reconnect_backoff_ms']).toBe(RECONNECT_BACKOFF_MAX_MS);
    expect(RECONNECT_BACKOFF_MAX_MS * (1 + JITTER_FRACTION)).toBeLessThan(1_000);
    expect(options['grpc.initial_reconnect_backoff_ms']).toBeLessThanOrEqual(RECONNECT_BACKOFF_MAX_MS);
  });

  it('takes in a large answer without waiting for window updates (HTTP/2 default: 64 KiB a connection)', () => {
    expect(channelOptions('ledger')['grpc-node.flow_control_window']).toBe(FLOW_CONTROL_WINDOW_BYTES);
    expect(FLOW_CONTROL_WINDOW_BYTES).toBeGreaterThan(64 * 1024);
  });

  it('keeps no channelz bookkeeping per client call, and leaves it on for servers (forceShutdown needs it)', () => {
    expect(channelOptions('ledger')['grpc.enable_channelz']).toBe(0);
    expect(serverOptions()['grpc.enable_channelz']).toBeUndefined();
  });

  it('sends the upstream identity as the TLS server name, whatever the address', () => {
    expect(channelOptions('trading')['grpc.ssl_target_name_override']).toBe('trading');
  });

  it('balances with round_robin and retries UNAVAILABLE only', () => {
    const config = JSON.parse(channelOptions('ledger')['grpc.service_config'] as string);
    expect(config.loadBalancingConfig).toEqual([{ round_robin: {} }]);
    expect(config.methodConfig).toHaveLength(1);
    expect(config.methodConfig[0].retryPolicy.retryableStatusCodes).toEqual(['UNAVAILABLE']);
    expect(config).toEqual(serviceConfig());
  });
});

describe('RETRYABLE_METHODS', () => {
  it('names only RPCs that exist in proto/', () => {
    const paths = everyRpcPath();
    expect(paths.size).toBeGreaterThan(50);
    expect(Object.keys(RETRYABLE_METHODS).filter((path) => !paths.has(path))).toEqual([]);
  });

  it('leaves partner creates and one-shot operations to their callers', () => {
    const notSafe = [
      '/payouts.v1.Transfers/CreateTransfer',
      '/payouts.v1.Transfers/Confirm',
      '/payouts.v1.UsdtSends/CreateUsdtSend',
      '/trading.v1.TradingOrders/CreateBuyOrder',
      '/trading.v1.TradingOrders/CreateSellOrder',
      '/trading.v1.Trading/CreateQuote',
      '/collections.v1.Collections/CreateCollection',
      '/ledger.v1.Ledger/PostHold',
      '/ledger.v1.Ledger/VoidHold',
      '/ledger.v1.Ledger/ClaimUsdtDeposit',
      '/payouts.v1.MobileMoneyFunding/CreateMobileMoneyPush',
    ];
    for (const path of notSafe) expect(RETRYABLE_METHODS).not.toHaveProperty([path]);
  });

  it('says for each why it is safe to repeat', () => {
    for (const reason of Object.values(RETRYABLE_METHODS)) expect(reason).toMatch(/^(read|idempotent\b)/);
  });
});
