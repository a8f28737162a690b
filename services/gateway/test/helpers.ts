/** Shared expectations of the gateway's integration specs. */
import { randomInt } from 'node:crypto';
import type { HttpResult } from '@platform/testing';

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The gateway keeps an opened credential at most this long (persistence/credential-lookup.ts). */
export const CREDENTIAL_CACHE_TTL_MS = 2_000;

export function uniform401(requestId: string): string {
  return `{"statusCode":401,"message":"An error occurred","error":"unauthorized","requestId":"${requestId}"}`;
}

export function requestIdOf(result: HttpResult): string {
  const requestId = result.headers.get('x-request-id');
  if (!requestId) throw new Error(`response ${result.status} has no X-Request-Id`);
  return requestId;
}

/** The error envelope ({statusCode, message, error, requestId}), with the response's own request id. */
export function envelope(result: HttpResult, statusCode: number, message: string, error: string) {
  return { statusCode, message, error, requestId: requestIdOf(result) };
}

/** A well-formed sandbox API key that no credential has. */
export function unknownApiKey(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `pk_sandbox_${Array.from({ length: 24 }, () => alphabet[randomInt(alphabet.length)]).join('')}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
