// Proves the local stack runs each service with the Node flags Kubernetes gives it: the
// image's (Dockerfile), unless the service's deploy/base/<service>/config.env names
// NODE_OPTIONS (its ConfigMap then replaces the image's); that the flags bound the old
// generation; that Node starts with them (it refuses, at start, a V8 flag it does not
// allow in NODE_OPTIONS); and that the other runtime variables a config.env sets (malloc's)
// reach the local stack's process as they reach the pod's. The stack scripts are ES modules
// run by plain Node, so they are loaded in a child process.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const REPO_ROOT = join(__dirname, '..', '..');

interface RuntimeEnvironments {
  byService: Record<string, string>;
  defaults: string;
  runtimeVariables: string[];
  runtimeByService: Record<string, Record<string, string>>;
}

function nodeOptionsByService(): RuntimeEnvironments {
  const url = pathToFileURL(join(__dirname, 'services.mjs')).href;
  const script = `
    const { SERVICES, SERVICE_NODE_OPTIONS, RUNTIME_VARIABLES, serviceNodeOptions, serviceRuntimeEnvironment } =
      await import(${JSON.stringify(url)});
    const profile = { repoRoot: ${JSON.stringify(REPO_ROOT)} };
    const byService = Object.fromEntries(SERVICES.map((service) => [service.name, serviceNodeOptions(profile, service)]));
    const runtimeByService = Object.fromEntries(
      SERVICES.map((service) => [service.name, serviceRuntimeEnvironment(profile, service)]),
    );
    process.stdout.write(
      JSON.stringify({ byService, defaults: SERVICE_NODE_OPTIONS, runtimeVariables: RUNTIME_VARIABLES, runtimeByService }),
    );`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

/** The `NAME=value` lines of a config.env, as the ConfigMap generator reads them. */
function configEnvValues(service: string): Record<string, string> {
  const text = readFileSync(join(REPO_ROOT, 'deploy', 'base', service, 'config.env'), 'utf8');
  return Object.fromEntries(
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('serviceNodeOptions', () => {
  const { byService, defaults, runtimeVariables, runtimeByService } = nodeOptionsByService();

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

  it('gives every service the runtime variables of its config.env, as its pod gets them', () => {
    for (const [service, runtime] of Object.entries(runtimeByService)) {
      const configured = configEnvValues(service);
      // A malloc setting the local stack would not pass on would run the pod and the stack differently.
      expect(
        Object.keys(configured).filter((name) => name.startsWith('MALLOC_') && !runtimeVariables.includes(name)),
      ).toEqual([]);
      const expected = Object.fromEntries(
        runtimeVariables.filter((name) => name in configured).map((name) => [name, configured[name]]),
      );
      expect({ service, runtime }).toEqual({ service, runtime: { ...expected, NODE_OPTIONS: byService[service] } });
    }
  });
});
