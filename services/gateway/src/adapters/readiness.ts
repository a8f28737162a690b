import type { Redis } from 'ioredis';
import type { DataSource } from '@platform/persistence';
import type { Readiness } from '../http/dependencies';

/** A readiness check is bounded: an unanswered dependency counts as not ready. */
export const READINESS_TIMEOUT_MS = 1_000;

function within<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Ready when Redis answers PING and PostgreSQL answers SELECT 1, until the gateway starts draining. */
export class StoreReadiness implements Readiness {
  private draining = false;

  constructor(
    private readonly redis: Redis,
    private readonly dataSource: DataSource,
  ) {}

  /** Not ready from now on, whatever the stores answer: load balancers send new requests elsewhere. */
  startDraining(): void {
    this.draining = true;
  }

  async ready(): Promise<boolean> {
    if (this.draining) return false;
    try {
      await within(Promise.all([this.redis.ping(), this.dataSource.query('SELECT 1')]), READINESS_TIMEOUT_MS);
      return true;
    } catch {
      return false;
    }
  }
}
