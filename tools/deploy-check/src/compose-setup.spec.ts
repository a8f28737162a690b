// Proves `npm run compose:setup` (scripts/compose-setup.mjs) gives docker compose what it
// refuses to start without: a fresh random value for every `${NAME:?}` key of
// docker-compose.yml in `.env` (owner-only, never a development key, never replacing
// one already set), and a short-lived identity certificate for every service and for
// the ops tool, each in its own folder, from one CA.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { developmentKeyProblem } from '@platform/config';
import { REPO_ROOT, serviceNames } from './repository';

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'compose-setup.mjs');
const SETUP_TIMEOUT_MS = 120_000;
const DAY_MS = 24 * 3600 * 1000;
const IDENTITY_LIFETIME_DAYS_MAX = 7;

/** The variables docker-compose.yml refuses to start without. */
const requiredVariables = [
  ...new Set(
    [...readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map(
      (match) => match[1],
    ),
  ),
].sort();

let dir: string;

function setup(): void {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !requiredVariables.includes(name)));
  execFileSync(process.execPath, [SCRIPT], {
    env: { ...env, COMPOSE_SETUP_DIR: dir },
    stdio: 'pipe',
    timeout: SETUP_TIMEOUT_MS,
  });
}

const envFile = () => path.join(dir, '.env');
const envEntries = () =>
  readFileSync(envFile(), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z0-9_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const);

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'compose-setup-'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run compose:setup', () => {
  it(
    'writes a fresh key for every variable compose requires, readable by its owner only, and keeps them on a second run',
    () => {
      expect(requiredVariables.length).toBeGreaterThan(0);
      setup();
      const entries = envEntries();
      expect(entries.map(([name]) => name).sort()).toEqual(requiredVariables);
      for (const [name, value] of entries) {
        expect({ name, hex: /^[0-9a-f]{64}$/.test(value), problem: developmentKeyProblem(value) }).toEqual({
          name,
          hex: true,
          problem: null,
        });
      }
      expect(new Set(entries.map(([, value]) => value)).size).toBe(entries.length);
      expect(statSync(envFile()).mode & 0o777).toBe(0o600);
      const first = readFileSync(envFile(), 'utf8');
      setup();
      expect(readFileSync(envFile(), 'utf8')).toBe(first);
    },
    SETUP_TIMEOUT_MS,
  );

  it(
    "never replaces a key already in .env, and keeps the file's other lines",
    () => {
      const [kept, ...rest] = requiredVariables;
      const existing = `# mine\nLOG_LEVEL=debug\n${kept}=${'3f'.repeat(16)}${'a1'.repeat(16)}`;
      writeFileSync(envFile(), existing);
      setup();
      const text = readFileSync(envFile(), 'utf8');
      expect(text.startsWith(`${existing}\n`)).toBe(true);
      expect(
        envEntries()
          .map(([name]) => name)
          .sort(),
      ).toEqual(['LOG_LEVEL', ...requiredVariables].sort());
      expect(envEntries().filter(([name]) => rest.includes(name))).toHaveLength(rest.length);
    },
    SETUP_TIMEOUT_MS,
  );

  it(
    'issues every service and the ops tool a certificate of its own, naming its identity, from one CA, for days only',
    () => {
      setup();
      const identities = path.join(dir, '.compose', 'tls', 'identities');
      const authorities = new Set<string>();
      for (const name of [...serviceNames(), 'ops']) {
        const folder = path.join(identities, name);
        const ca = new X509Certificate(readFileSync(path.join(folder, 'ca.crt')));
        const certificate = new X509Certificate(readFileSync(path.join(folder, 'tls.crt')));
        authorities.add(ca.fingerprint256);
        expect({ name, issued: certificate.checkIssued(ca) && certificate.verify(ca.publicKey) }).toEqual({
          name,
          issued: true,
        });
        expect(certificate.subjectAltName).toContain(`URI:spiffe://platform/${name}`);
        const lifetimeMs = Date.parse(certificate.validTo) - Date.parse(certificate.validFrom);
        expect({ name, days: Math.round(lifetimeMs / DAY_MS) }).toEqual({ name, days: IDENTITY_LIFETIME_DAYS_MAX });
        expect(statSync(path.join(folder, 'tls.key')).mode & 0o077).toBe(0);
      }
      expect(authorities.size).toBe(1);
    },
    SETUP_TIMEOUT_MS,
  );
});
