// Proves docs/deploying.md keeps up with the manifests: every Secret key a
// service reads is in the document's table of that service's Secret, and every
// variable set in a service's config.env or in platform.env is named in it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Container, podSpecOf, secretRefs, Workload } from './pods';
import { DEPLOY_DIR, ofKind, REPO_ROOT, renderKustomization, serviceNames } from './repository';

const guide = readFileSync(path.join(REPO_ROOT, 'docs', 'deploying.md'), 'utf8');

/** The keys listed in the guide's row for a Secret: "| `ledger-secrets` | `DATABASE_URL`, `AMQP_URL` |". */
function documentedKeys(secret: string): string[] {
  const row = guide.split('\n').find((line) => line.startsWith(`| \`${secret}\` |`));
  if (!row) return [];
  return [...row.split('|')[2].matchAll(/`([A-Z0-9_]+)`/g)].map((match) => match[1]);
}

function envFileKeys(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => line.split('=')[0]);
}

describe('docs/deploying.md', () => {
  it('lists every Secret key each service reads', () => {
    const deployments = ofKind<Workload>(renderKustomization('deploy/overlays/production'), 'Deployment');
    const undocumented = deployments.flatMap((deployment) =>
      podSpecOf(deployment).containers.flatMap((container: Container) =>
        secretRefs(container)
          .filter((ref) => !documentedKeys(ref.secret).includes(ref.key))
          .map((ref) => `${ref.secret}/${ref.key}`),
      ),
    );
    expect(undocumented).toEqual([]);
  });

  it("names every variable of platform.env and of each service's config.env", () => {
    const files = [
      path.join(DEPLOY_DIR, 'base', 'platform.env'),
      ...serviceNames().map((service) => path.join(DEPLOY_DIR, 'base', service, 'config.env')),
    ];
    const missing = files.flatMap((file) =>
      envFileKeys(file)
        .filter((key) => !guide.includes(`\`${key}\``))
        .map((key) => `${path.relative(REPO_ROOT, file)}: ${key}`),
    );
    expect(missing).toEqual([]);
  });
});
