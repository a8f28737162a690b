import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AppError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { ADMISSION_SCRIPT, Admission, interpretAdmissionReply, nonceKey, rateLimitKey } from '../domain/rate-limit';
import type { AdmissionRequest, RequestAdmission } from '../http/dependencies';
import { CoalescedWrites } from './redis';

const SCRIPT_SHA1 = createHash('sha1').update(ADMISSION_SCRIPT).digest('hex');

function isNoScript(error: unknown): boolean {
  return (error as Error | undefined)?.message?.startsWith('NOSCRIPT') ?? false;
}

/**
 * The nonce claim and the partner rate limit of domain/rate-limit.ts, run as
 * one atomic script: one Redis round trip per request. Nonces are single-use
 * per API key for NONCE_RETENTION_MS, shared by every replica, so a replay is
 * caught whichever replica it reaches. Redis not answering fails closed (503).
 * The admissions of requests that arrive together share one socket write
 * (CoalescedWrites).
 */
export class RedisRequestAdmission implements RequestAdmission {
  private readonly writes: CoalescedWrites;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {
    this.writes = new CoalescedWrites(redis);
  }

  async admit(request: AdmissionRequest): Promise<Admission> {
    const nonce = nonceKey(request.apiKey, request.nonce);
    const windowKey = rateLimitKey(request.partnerId);
    const limit = request.limitPerMinute;
    let reply: unknown;
    try {
      this.writes.hold();
      try {
        reply = await this.redis.evalsha(SCRIPT_SHA1, 2, nonce, windowKey, limit);
      } catch (error) {
        // First use on this Redis (or after a flush): load the script by sending it whole.
        if (!isNoScript(error)) throw error;
        reply = await this.redis.eval(ADMISSION_SCRIPT, 2, nonce, windowKey, limit);
      }
    } catch (error) {
      this.logger.warn('nonce and rate-limit store unavailable; refusing the request', {
        error: (error as Error).message,
      });
      throw new AppError('SERVICE_UNAVAILABLE');
    }
    return interpretAdmissionReply(reply, limit);
  }
}
