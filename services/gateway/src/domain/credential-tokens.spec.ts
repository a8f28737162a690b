// Proves API keys and signing secrets have the documented shapes, are not
// repeated, and that a deployment only recognises keys of its own mode.
import { apiKeyPattern, generateApiKey, generateSigningSecret, keyModeFor } from './credential-tokens';

describe('credential tokens', () => {
  it('makes API keys of the documented shape, for the deployment mode', () => {
    expect(generateApiKey('sandbox')).toMatch(/^pk_sandbox_[A-Za-z0-9]{24}$/);
    expect(generateApiKey('live')).toMatch(/^pk_live_[A-Za-z0-9]{24}$/);
    expect(keyModeFor('production')).toBe('live');
    expect(keyModeFor('sandbox')).toBe('sandbox');
  });

  it('makes signing secrets of 32 random bytes in base64url', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret.slice(3), 'base64url')).toHaveLength(32);
  });

  it('does not repeat itself', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey('sandbox')));
    const secrets = new Set(Array.from({ length: 200 }, () => generateSigningSecret()));
    expect(keys.size).toBe(200);
    expect(secrets.size).toBe(200);
  });

  it('recognises only keys of its own mode', () => {
    const sandbox = apiKeyPattern('sandbox');
    expect(sandbox.test(generateApiKey('sandbox'))).toBe(true);
    expect(sandbox.test(generateApiKey('live'))).toBe(false);
    expect(sandbox.test(`${generateApiKey('sandbox')}x`)).toBe(false);
    expect(sandbox.test(generateSigningSecret())).toBe(false);
  });
});
