/**
 * Failures the CLI reports itself. Refusals from services arrive as AppError
 * (wrapped in UpstreamError to say who refused); everything the tool decides
 * on its own (bad flags, no address for a service) is a CliError.
 */
import { AppError, ERROR_CATALOGUE } from '@platform/errors';

/** Exit statuses: 0 done, 1 failed, 2 invoked wrongly (unknown command or flag). */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export type CliErrorCode = 'USAGE' | 'VALIDATION_FAILED' | 'CONFIGURATION_ERROR' | 'INTERNAL_ERROR' | string;

export class CliError extends Error {
  constructor(
    readonly code: CliErrorCode,
    message: string,
    readonly exitCode: number = EXIT_FAILED,
    /** Extra machine-readable fields for the JSON error object, e.g. partnerId (never secrets; never code or message). */
    readonly details: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function usageError(message: string): CliError {
  return new CliError('USAGE', message, EXIT_USAGE);
}

/** A service's answer to one call failed: its refusal, or it did not answer. */
export class UpstreamError extends Error {
  constructor(
    readonly upstream: string,
    readonly address: string,
    readonly method: string,
    readonly refusal: AppError,
  ) {
    super(`${upstream}.${method}: ${refusal.code}`);
    this.name = 'UpstreamError';
  }

  get code(): string {
    return this.refusal.code;
  }

  /** One sentence for a person: who failed, how, and what the code means. */
  describe(): string {
    if (this.refusal.code === 'SERVICE_UNAVAILABLE') {
      return `${this.upstream} at ${this.address} did not answer ${this.method} (down, unreachable or too slow)`;
    }
    const meaning =
      this.refusal.code === 'VALIDATION_FAILED'
        ? this.refusal.partnerMessage
        : ERROR_CATALOGUE[this.refusal.code].description;
    return `${this.upstream} refused ${this.method}: ${this.refusal.code}: ${meaning}`;
  }
}
