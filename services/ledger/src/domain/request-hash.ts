/**
 * Idempotency fingerprints. A caller retrying a request under the same id must
 * get the original result, and a different request under that id a refusal, so
 * the request is reduced to a canonical JSON (keys sorted at every depth) and
 * hashed: key order and whitespace never make two equal requests differ.
 */
import { sha256Hex } from '@platform/crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

export function requestHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
