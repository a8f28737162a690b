// Proves the local stack runs each service with the Node flags Kubernetes gives it: the
// image's (Dockerfile), unless the service's deploy/base/<service>/config.env names
// NODE_OPTIONS (its ConfigMap then replaces the image's); that the flags bound the old
// generation; and that Node starts with them (it refuses, at start, a V8 flag it does not
// allow in NODE_OPTIONS). The stack scripts are ES modules run by plain Node, so they are
// loaded in a child process.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const REPO_ROOT = join(__dirname, '..', '..');

function nodeOptionsByService(): { byService: Record<string, string>; defaults: string } {
  const url = pathToFileURL(join(__dirname, 'services.mjs')).href;
  const script = `
    const { SERVICES, SERVICE_NODE_OPTIONS, serviceNodeOptions } = await import(${JSON.stringify(url)});
    const profile = { repoRoot: ${JSON.stringify(REPO_ROOT)} };
    const byService = Object.fromEntries(SERVICES.map((service) => [service.name, serviceNodeOptions(profile, service)]));
    process.stdout.write(JSON.stringify({ byService, defaults: SERVICE_NODE_OPTIONS }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

describe('serviceNodeOptions', () => {
  const { byService, defaults } = nodeOptionsByService();

  it("gives every service the image's flags, which bound the old generation", () => {
    const image = /^ENV NODE_OPTIONS="?([^"\n]*)"?$/m.exec(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'))?.[1];
    expect(image).toBe(defaults);
    expect(defaults).toContain('--max-old-space-size=');
    for (const [service, options] of Object.entries(byService)) {
      const configEnv = readFileSync(join(REPO_ROOT, 'deploy', 'base', service, 'config.env'), 'utf8');
      const line = /^NODE_OPTIONS=(.*)$/m.exec(configEnv)?.[1];
      expect({ service, options }).toEqual({ service, options: line ?? defaults });
    }
  });

  it("starts Node with every service's flags in NODE_OPTIONS", () => {
    for (const options of new Set(Object.values(byService))) {
      const started = spawnSync(process.execPath, ['-e', '0'], {
        env: { ...process.env, NODE_OPTIONS: options },
        encoding: 'utf8',
      });
      expect({ options, status: started.status, stderr: started.stderr }).toEqual({ options, status: 0, stderr: '' });
    }
  });
});
