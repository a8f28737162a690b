/**
 * Proves openapi.json lints clean under both rule sets, running the real CLIs
 * offline: Spectral with its OpenAPI ruleset and the OWASP API Security ruleset
 * (.spectral.yaml: no error and no warning), and Redocly's recommended-strict
 * (redocly.yaml: warnings fail too).
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { OPENAPI_WORKSPACE_DIR } from './paths';

const LINT_TIMEOUT_MS = 120_000;

const require = createRequire(__filename);

function binOf(packageName: string, binName: string): string {
  const manifest = require.resolve(`${packageName}/package.json`);
  const { bin } = require(manifest) as { bin: Record<string, string> | string };
  return join(dirname(manifest), typeof bin === 'string' ? bin : bin[binName]);
}

function runCli(script: string, args: string[]): Promise<{ code: number; text: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      {
        cwd: OPENAPI_WORKSPACE_DIR,
        timeout: LINT_TIMEOUT_MS,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, text: `${stdout}${stderr}` }),
    );
  });
}

describe('openapi.json lint', () => {
  it(
    "has no error or warning under Spectral's OpenAPI and OWASP rulesets",
    async () => {
      const output = await runCli(binOf('@stoplight/spectral-cli', 'spectral'), [
        'lint',
        'openapi.json',
        '--ruleset',
        '.spectral.yaml',
        '--format',
        'text',
        '--fail-severity',
        'warn',
      ]);
      // --fail-severity warn: any warning fails too, and a clean run says so in one line.
      if (output.code !== 0 || !/No results with a severity of 'warn' or higher found/.test(output.text))
        throw new Error(`spectral lint failed:\n${output.text}`);
    },
    LINT_TIMEOUT_MS,
  );

  it(
    "has no problems under Redocly's recommended-strict ruleset",
    async () => {
      const output = await runCli(binOf('@redocly/cli', 'redocly'), [
        'lint',
        'openapi.json',
        '--config',
        'redocly.yaml',
        '--format',
        'stylish',
      ]);
      // recommended-strict makes every warning an error, so the exit code and the success line say it all.
      if (output.code !== 0 || !/Your API description is valid/.test(output.text))
        throw new Error(`redocly lint failed:\n${output.text}`);
    },
    LINT_TIMEOUT_MS,
  );
});
