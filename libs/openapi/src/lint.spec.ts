/**
 * Proves openapi.json lints clean under redocly.yaml (Redocly's
 * recommended-strict ruleset: warnings fail too). Runs the real CLI, offline,
 * with telemetry and update checks off.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { OPENAPI_WORKSPACE_DIR } from './paths';

const LINT_TIMEOUT_MS = 120_000;

function redoclyBin(): string {
  const manifest = require.resolve('@redocly/cli/package.json');
  const { bin } = require(manifest) as { bin: Record<string, string> };
  return join(dirname(manifest), bin.redocly);
}

describe('openapi.json lint', () => {
  it('has no problems under the configured ruleset', async () => {
    const output = await new Promise<{ code: number; text: string }>((resolve) => {
      execFile(process.execPath, [redoclyBin(), 'lint', 'openapi.json', '--config', 'redocly.yaml', '--format', 'stylish'], {
        cwd: OPENAPI_WORKSPACE_DIR,
        timeout: LINT_TIMEOUT_MS,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      }, (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, text: `${stdout}${stderr}` }));
    });
    // recommended-strict makes every warning an error, so the exit code and the success line say it all.
    if (output.code !== 0 || !/Your API description is valid/.test(output.text)) throw new Error(`redocly lint failed:\n${output.text}`);
  }, LINT_TIMEOUT_MS);
});
