/** Proves the recording logger keeps every level's message and fields in call order, children included. */
import { recordingLogger } from './recording-logger';

describe('recordingLogger', () => {
  it('keeps each call with its level, message and fields, in order', () => {
    const { logger, lines } = recordingLogger();
    logger.info('started');
    logger.warn('slow', { elapsedMs: 1200 });
    logger.child({ component: 'x' }).error('failed', { alert: 'y' });
    logger.debug('detail');
    expect(lines).toEqual([
      { level: 'info', message: 'started', fields: {} },
      { level: 'warn', message: 'slow', fields: { elapsedMs: 1200 } },
      { level: 'error', message: 'failed', fields: { alert: 'y' } },
      { level: 'debug', message: 'detail', fields: {} },
    ]);
  });
});
