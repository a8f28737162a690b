// Proves that configuration fails fast and lists every problem at once.
import { commonServiceEnv, ConfigError, hexKey32, loadConfig, z } from './index';

const schema = z.object({ ...commonServiceEnv, KEY: hexKey32() });

describe('loadConfig', () => {
  it('applies defaults and coerces numbers', () => {
    const config = loadConfig(schema, {
      DATABASE_URL: 'postgres://u:p@localhost:5432/db',
      GRPC_PORT: '7001',
      KEY: 'a'.repeat(64),
    });
    expect(config.GRPC_PORT).toBe(7001);
    expect(config.PLATFORM_MODE).toBe('sandbox');
    expect(config.SANDBOX_TIME_SCALE).toBe(1);
  });

  it('names every invalid variable in one error', () => {
    try {
      loadConfig(schema, { DATABASE_URL: 'mysql://x', GRPC_PORT: '99999', KEY: 'short' });
      throw new Error('expected ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toContain('DATABASE_URL');
      expect(problems).toContain('GRPC_PORT');
      expect(problems).toContain('KEY');
    }
  });

  it('refuses an unknown platform mode', () => {
    expect(() =>
      loadConfig(schema, { DATABASE_URL: 'postgres://x/y', GRPC_PORT: '1', KEY: 'a'.repeat(64), PLATFORM_MODE: 'prod' }),
    ).toThrow(/PLATFORM_MODE/);
  });
});
