// Proves how the tool finds a service: <PEER>_GRPC_ADDR wins, else the stack
// file (OPS_STACK_FILE, default .stack/stack.json under the repository root),
// and every way of not finding one fails with a message that says what to set.
// Likewise its TLS identity: TLS_CA_FILE, TLS_CERT_FILE and TLS_KEY_FILE
// together, else the stack file's ops certificate.
import { CliError } from './cli-error';
import { AddressSources, resolveAddress, resolveTlsFiles, stackFilePath } from './clients';

const repoRoot = '/repo';
const stack = JSON.stringify({
  grpc: {
    gateway: '127.0.0.1:7000',
    trading: '127.0.0.1:7001',
    ledger: '127.0.0.1:7002',
    'wallet-registry': '127.0.0.1:7003',
    'webhook-delivery': '127.0.0.1:7007',
  },
});

function sources(env: NodeJS.ProcessEnv, files: Record<string, string> = {}): AddressSources & { reads: string[] } {
  const reads: string[] = [];
  return {
    env,
    repoRoot,
    reads,
    readFile: (path) => {
      reads.push(path);
      if (path in files) return files[path];
      throw Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' });
    },
  };
}

function failure(run: () => unknown): CliError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe('CONFIGURATION_ERROR');
    return error as CliError;
  }
  throw new Error('expected a CONFIGURATION_ERROR');
}

describe('stackFilePath', () => {
  it('defaults to .stack/stack.json under the repository root', () => {
    expect(stackFilePath({}, repoRoot)).toBe('/repo/.stack/stack.json');
  });

  it('takes OPS_STACK_FILE, absolute as is and relative to the repository root', () => {
    expect(stackFilePath({ OPS_STACK_FILE: '/tmp/s.json' }, repoRoot)).toBe('/tmp/s.json');
    expect(stackFilePath({ OPS_STACK_FILE: '.stack-test/stack.json' }, repoRoot)).toBe('/repo/.stack-test/stack.json');
  });
});

describe('resolveAddress', () => {
  it('prefers the environment variable and does not read the stack file', () => {
    const from = sources({ LEDGER_GRPC_ADDR: 'ledger:7002' }, { '/repo/.stack/stack.json': stack });
    expect(resolveAddress('ledger', from)).toBe('ledger:7002');
    expect(from.reads).toEqual([]);
  });

  it('reads the stack file by the service name used there', () => {
    const from = sources({}, { '/repo/.stack/stack.json': stack });
    expect(resolveAddress('gateway', from)).toBe('127.0.0.1:7000');
    expect(resolveAddress('walletRegistry', from)).toBe('127.0.0.1:7003');
    expect(resolveAddress('webhookDelivery', from)).toBe('127.0.0.1:7007');
  });

  it('reads the file OPS_STACK_FILE names', () => {
    const from = sources({ OPS_STACK_FILE: '/tmp/test-stack.json' }, { '/tmp/test-stack.json': stack });
    expect(resolveAddress('trading', from)).toBe('127.0.0.1:7001');
  });

  it('refuses a malformed environment variable instead of falling back', () => {
    const error = failure(() =>
      resolveAddress(
        'ledger',
        sources({ LEDGER_GRPC_ADDR: 'http://ledger:7002' }, { '/repo/.stack/stack.json': stack }),
      ),
    );
    expect(error.message).toContain('LEDGER_GRPC_ADDR must be host:port');
  });

  it('says what to set when there is neither variable nor stack file', () => {
    const error = failure(() => resolveAddress('webhookDelivery', sources({})));
    expect(error.message).toContain('WEBHOOK_DELIVERY_GRPC_ADDR is not set');
    expect(error.message).toContain('/repo/.stack/stack.json does not exist');
    expect(error.message).toContain('npm start');
  });

  it.each([
    ['not JSON', '{"grpc":'],
    ['JSON without grpc', '{"gatewayUrl":"http://127.0.0.1:8080"}'],
    ['grpc not an object', '{"grpc":["127.0.0.1:7002"]}'],
  ])('refuses a stack file that is %s', (_what, text) => {
    const error = failure(() => resolveAddress('ledger', sources({}, { '/repo/.stack/stack.json': text })));
    expect(error.message).toContain('is not a stack file');
  });

  it('refuses a stack file without the service or with a malformed address', () => {
    const files = {
      '/repo/.stack/stack.json': JSON.stringify({ grpc: { ledger: 'nowhere', gateway: '127.0.0.1:7000' } }),
    };
    expect(failure(() => resolveAddress('ledger', sources({}, files))).message).toContain(
      'no host:port at grpc["ledger"]',
    );
    expect(failure(() => resolveAddress('trading', sources({}, files))).message).toContain(
      'no host:port at grpc["trading"]',
    );
  });
});

describe('resolveTlsFiles', () => {
  const withTls = JSON.stringify({
    grpc: {},
    tls: {
      caFile: '/s/tls/ca.pem',
      identities: { ops: { certFile: '/s/tls/ops.pem', keyFile: '/s/tls/ops-key.pem' } },
    },
  });

  it('takes the three variables together, without reading the stack file', () => {
    const from = sources({ TLS_CA_FILE: '/m/ca.crt', TLS_CERT_FILE: '/m/tls.crt', TLS_KEY_FILE: '/m/tls.key' });
    expect(resolveTlsFiles(from)).toEqual({ caFile: '/m/ca.crt', certFile: '/m/tls.crt', keyFile: '/m/tls.key' });
    expect(from.reads).toEqual([]);
  });

  it('refuses some of the variables without the others', () => {
    expect(failure(() => resolveTlsFiles(sources({ TLS_CERT_FILE: '/m/tls.crt' }))).message).toMatch(
      /set all of TLS_CA_FILE, TLS_CERT_FILE, TLS_KEY_FILE or none/,
    );
  });

  it("falls back to the stack file's ops identity", () => {
    expect(resolveTlsFiles(sources({}, { '/repo/.stack/stack.json': withTls }))).toEqual({
      caFile: '/s/tls/ca.pem',
      certFile: '/s/tls/ops.pem',
      keyFile: '/s/tls/ops-key.pem',
    });
  });

  it('says what to set when the stack file has no ops identity', () => {
    expect(failure(() => resolveTlsFiles(sources({}, { '/repo/.stack/stack.json': stack }))).message).toMatch(
      /no TLS identity.*"tls" object/,
    );
  });
});
