// Proves no secret value is committed under deploy/: no Secret object with data, no
// secretGenerator, no ConfigMap or .env file carrying a key that names a secret
// (keys, passwords, tokens, connection URLs with credentials; a `_FILE` variable
// holding an absolute path names a mounted Secret's file and is allowed), and no
// URL with a password anywhere. Secrets reach pods only through secretKeyRef.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import {
  DEPLOY_DIR,
  filesUnder,
  K8sObject,
  OVERLAYS,
  parseYamlDocuments,
  REPO_ROOT,
  renderKustomization,
} from './repository';

/** Variable names that hold secrets; they belong in a Secret, never in a ConfigMap. */
const SECRET_LOOKING_NAME = /(KEY|SECRET|PASSWORD|PASSWD|TOKEN|CREDENTIAL|PRIVATE|DATABASE_URL|AMQP_URL|REDIS_URL)/i;
/**
 * A `<NAME>_FILE` variable whose value is an absolute path says where a mounted
 * Secret's file is (TLS_KEY_FILE=/var/run/platform/tls/tls.key), not the secret.
 */
const MOUNTED_FILE_PATH = (name: string, value: string) => /_FILE$/.test(name) && value.startsWith('/');
/** scheme://user:password@host */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@/i;

const files = filesUnder(DEPLOY_DIR);
const relative = (file: string) => path.relative(REPO_ROOT, file);

function yamlObjects(file: string): K8sObject[] {
  return parseYamlDocuments(readFileSync(file, 'utf8'), relative(file)) as K8sObject[];
}

/** The keys of an .env file, less those naming a mounted file by its path. */
function envFileKeys(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => [line.split('=')[0], line.slice(line.indexOf('=') + 1)])
    .filter(([key, value]) => !MOUNTED_FILE_PATH(key, value))
    .map(([key]) => key);
}

describe('no secret value under deploy/', () => {
  it('has no Secret object with data and no secretGenerator', () => {
    const offenders = files
      .filter((file) => /\.ya?ml$/.test(file))
      .flatMap((file) =>
        yamlObjects(file).flatMap((object) => {
          const record = object as Record<string, unknown>;
          const isSecretWithData =
            object.kind === 'Secret' && (record.data !== undefined || record.stringData !== undefined);
          return isSecretWithData || record.secretGenerator !== undefined ? [relative(file)] : [];
        }),
      );
    expect(offenders).toEqual([]);
  });

  it('has no secret-looking key in a ConfigMap, a configMapGenerator or an .env file', () => {
    const keys: string[] = [];
    for (const file of files) {
      if (file.endsWith('.env')) keys.push(...envFileKeys(file).map((key) => `${relative(file)}: ${key}`));
      if (!/\.ya?ml$/.test(file)) continue;
      for (const object of yamlObjects(file)) {
        const record = object as Record<string, unknown> & {
          data?: Record<string, string>;
          configMapGenerator?: { literals?: string[] }[];
        };
        if (object.kind === 'ConfigMap')
          keys.push(
            ...Object.entries(record.data ?? {})
              .filter(([key, value]) => !MOUNTED_FILE_PATH(key, value))
              .map(([key]) => `${relative(file)}: ${key}`),
          );
        for (const generator of record.configMapGenerator ?? []) {
          keys.push(...(generator.literals ?? []).map((literal) => `${relative(file)}: ${literal.split('=')[0]}`));
        }
      }
    }
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key) => SECRET_LOOKING_NAME.test(key.split(': ')[1]))).toEqual([]);
  });

  it.each([...OVERLAYS])('renders no secret-looking ConfigMap key in %s', (overlay) => {
    const configMaps = renderKustomization(`deploy/overlays/${overlay}`).filter(
      (object) => object.kind === 'ConfigMap',
    ) as (K8sObject & { data?: Record<string, string> })[];
    const keys = configMaps.flatMap((configMap) =>
      Object.entries(configMap.data ?? {})
        .filter(([key, value]) => !MOUNTED_FILE_PATH(key, value))
        .map(([key]) => key),
    );
    expect(keys.filter((key) => SECRET_LOOKING_NAME.test(key))).toEqual([]);
  });

  it('has no URL with a password in any file', () => {
    expect(files.filter((file) => URL_WITH_PASSWORD.test(readFileSync(file, 'utf8'))).map(relative)).toEqual([]);
  });
});
