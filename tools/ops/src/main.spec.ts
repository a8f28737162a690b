// Proves the command line contract: with --json stdout carries exactly one
// JSON object (the result or {"error":{code,message}}); unknown commands and
// flags print the usage and exit 2; bad values exit 1 before any service is
// called; a service's refusal arrives with its code; secrets reach stdout as
// the result only, never stderr.
import { AppError } from '@platform/errors';
import { UpstreamError } from './cli-error';
import type { OpsClients } from './clients';
import { COMMANDS } from './commands';
import { runCli } from './main';

const partner = '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11';

function harness(clients: Partial<Record<keyof OpsClients, () => unknown>> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  let made = 0;
  let closed = 0;
  const deps = {
    io: { stdout: (text: string) => out.push(text), stderr: (text: string) => err.push(text) },
    makeClients: () => {
      made += 1;
      return { ...(clients as unknown as OpsClients), closeAll: () => (closed += 1) };
    },
  };
  return {
    run: (argv: string[]) => runCli(argv, deps),
    stdout: () => out.join(''),
    stderr: () => err.join(''),
    made: () => made,
    closed: () => closed,
  };
}

const issuing = {
  partnerAdmin: () => ({
    issueCredential: async (request: { partnerId: string; scopes: string[] }) => ({
      apiKey: 'pk_test_1',
      signingSecret: 'the-signing-secret',
      scopes: request.scopes.length ? request.scopes : ['read', 'trade'],
      partnerId: request.partnerId,
    }),
  }),
};

describe('runCli', () => {
  it('prints exactly one JSON object with --json, wherever the flag stands', async () => {
    for (const argv of [
      ['credential', 'issue', '--partner', partner, '--json'],
      ['--json', 'credential', 'issue', '--partner', partner],
    ]) {
      const cli = harness(issuing);
      expect(await cli.run(argv)).toBe(0);
      expect(cli.stdout().trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(cli.stdout())).toEqual({
        apiKey: 'pk_test_1',
        signingSecret: 'the-signing-secret',
        scopes: ['read', 'trade'],
      });
      expect(cli.stderr()).toBe('');
      expect(cli.closed()).toBe(1);
    }
  });

  it('prints a readable summary without --json', async () => {
    const cli = harness(issuing);
    expect(await cli.run(['credential', 'issue', '--partner', partner, '--scopes', 'read'])).toBe(0);
    expect(cli.stdout()).toContain('pk_test_1');
    expect(cli.stdout()).toContain('shown this once');
    expect(() => JSON.parse(cli.stdout())).toThrow();
  });

  it.each([
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['partner', 'explode'], 'unknown command "partner explode"'],
    [[], 'no command given'],
    [['--partner', partner], 'no command given'],
    [['credential', 'issue', '--partner', partner, '--bogus'], "Unknown option '--bogus'"],
    [['credential', 'issue', '--partner'], 'argument missing'],
    [['credential', 'issue', 'extra'], "Unexpected argument 'extra'"],
  ])('exits 2 with the usage for %p', async (argv, why) => {
    const cli = harness();
    expect(await cli.run(['--json', ...argv])).toBe(2);
    const { error } = JSON.parse(cli.stdout());
    expect(error.code).toBe('USAGE');
    expect(error.message).toContain(why);
    expect(cli.stderr()).toContain('Usage: npm run -s ops --');
    expect(cli.made()).toBe(0);
  });

  it('refuses bad values with exit 1 before making any client', async () => {
    const cli = harness();
    expect(
      await cli.run([
        'webhook',
        'set',
        '--partner',
        partner,
        '--url',
        'http://x.example',
        '--secret',
        'tiny-secret',
        '--json',
      ]),
    ).toBe(1);
    const { error } = JSON.parse(cli.stdout());
    expect(error).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'Validation failed on: --url (an https:// URL), --secret (16 to 256 characters)',
    });
    expect(cli.stdout()).not.toContain('tiny-secret');
    expect(cli.made()).toBe(0);
  });

  it("reports a service's refusal with its code and closes the clients", async () => {
    const cli = harness({
      partnerAdmin: () => ({
        revokeCredential: async () => {
          throw new UpstreamError('gateway', '127.0.0.1:7000', 'revokeCredential', new AppError('PARTNER_NOT_FOUND'));
        },
      }),
    });
    expect(await cli.run(['credential', 'revoke', '--api-key', 'pk_1', '--json'])).toBe(1);
    const { error } = JSON.parse(cli.stdout());
    expect(error).toMatchObject({ code: 'PARTNER_NOT_FOUND', upstream: 'gateway', method: 'revokeCredential' });
    expect(cli.closed()).toBe(1);
  });

  it('writes errors to stderr without --json', async () => {
    const cli = harness();
    expect(await cli.run(['deliveries', 'list', '--partner', 'nope'])).toBe(1);
    expect(cli.stdout()).toBe('');
    expect(cli.stderr()).toBe('error: VALIDATION_FAILED: Validation failed on: --partner (expected a UUID)\n');
  });

  it('prints help and exits 0', async () => {
    const cli = harness();
    expect(await cli.run(['--help'])).toBe(0);
    expect(cli.stdout()).toContain('partner create');
    const one = harness();
    expect(await one.run(['webhook', 'set', '--help'])).toBe(0);
    expect(one.stdout()).toContain('--rotation-overlap-seconds');
  });
});

describe('every command', () => {
  const commands = COMMANDS.map((command) => [command.name, command] as const);

  it.each(commands)('%s answers --help with every flag it takes, its value and its rule', async (name, command) => {
    const cli = harness();
    expect(await cli.run([...name.split(' '), '--help'])).toBe(0);
    for (const [flag, spec] of Object.entries(command.flags)) {
      expect(spec.help.length).toBeGreaterThan(10);
      expect(cli.stdout()).toContain(`--${flag}`);
      expect(cli.stdout()).toContain(spec.help);
    }
    expect(cli.stdout()).toContain('--json');
    expect(cli.made()).toBe(0);
  });

  it.each(commands)('%s names the flag and the rule in every refusal of a bad value', async (name, command) => {
    const cli = harness();
    const valueFlags = Object.entries(command.flags)
      .filter(([, spec]) => spec.type === 'string')
      .map(([flag]) => flag);
    if (valueFlags.length === 0) return;
    const argv = [
      ...name.split(' '),
      ...valueFlags.flatMap((flag) => [`--${flag}`, `\u0007${'x'.repeat(3_000)}`]),
      '--json',
    ];
    expect(await cli.run(argv)).toBe(1);
    expect(cli.made()).toBe(0);
    const { error } = JSON.parse(cli.stdout()) as { error: { code: string; message: string } };
    expect(error.code).toBe('VALIDATION_FAILED');
    // Each problem reads `--flag (rule)`; the list is nothing else.
    expect(error.message).toMatch(/^Validation failed on: --[a-z-]+ \([^)]+\)(, --[a-z-]+ \([^)]+\))*$/);
  });

  it('names an unknown flag in its usage refusal', async () => {
    const cli = harness();
    expect(await cli.run(['ledger', 'check', '--verbose'])).toBe(2);
    expect(cli.stderr()).toContain('--verbose');
  });
});
