/**
 * The API reference, outside /v1: no authentication and no rate limit (it holds
 * nothing partner-specific), but still behind the request-id step.
 *   GET /openapi.json   the OpenAPI 3.1 document (@platform/openapi)
 *   GET /docs           the reference page, rendered from that document when
 *                       @platform/openapi is built: one self-contained file, no
 *                       CDN (machines may be offline), nothing rendered here
 * Each answer carries a strong ETag (SHA-256 of its bytes) and a public max-age,
 * so browsers and proxies revalidate cheaply; If-None-Match answers 304. The page's
 * Content-Security-Policy lets it run its own inline scripts but reach nothing but
 * this origin: a partner reading the reference sends nothing to a third party.
 */
import { createHash } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import type { RequestHandler } from 'express';
import { openApiDocument, REFERENCE_HTML_FILE } from '@platform/openapi';

/** The document changes only with a deploy; five minutes keeps a rollout visible quickly. */
const DOCUMENT_MAX_AGE_SECONDS = 300;
/** Redoc needs its inline scripts and styles (and may start a worker); anything else stays on this origin. */
const DOCS_PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface StaticAsset {
  body: Buffer;
  contentType: string;
  etag: string;
  maxAgeSeconds: number;
  headers: Record<string, string>;
}

function asset(
  body: Buffer,
  contentType: string,
  maxAgeSeconds: number,
  headers: Record<string, string> = {},
): StaticAsset {
  return {
    body,
    contentType,
    maxAgeSeconds,
    headers,
    etag: `"${createHash('sha256').update(body).digest('base64url')}"`,
  };
}

function serveAsset(load: () => StaticAsset): RequestHandler {
  let loaded: StaticAsset | undefined;
  return (req, res) => {
    loaded ??= load();
    res.setHeader('Cache-Control', `public, max-age=${loaded.maxAgeSeconds}`);
    res.setHeader('ETag', loaded.etag);
    res.setHeader('Referrer-Policy', 'no-referrer');
    for (const [name, value] of Object.entries(loaded.headers)) res.setHeader(name, value);
    if (req.headers['if-none-match'] === loaded.etag) {
      res.status(304).end();
      return;
    }
    res.status(200).type(loaded.contentType).send(loaded.body);
  };
}

export const openApiJsonHandler = (): RequestHandler =>
  serveAsset(() =>
    asset(Buffer.from(JSON.stringify(openApiDocument())), 'application/json; charset=utf-8', DOCUMENT_MAX_AGE_SECONDS),
  );

/**
 * Checks the page is readable when the app is built, so a gateway built without it does not
 * start, but reads it (2.9 MB) on its first request only: a partner plane that nobody reads
 * the reference on does not keep it resident.
 */
export const docsPageHandler = (): RequestHandler => {
  accessSync(REFERENCE_HTML_FILE, constants.R_OK);
  return serveAsset(() =>
    asset(readFileSync(REFERENCE_HTML_FILE), 'text/html; charset=utf-8', DOCUMENT_MAX_AGE_SECONDS, {
      'Content-Security-Policy': DOCS_PAGE_CONTENT_SECURITY_POLICY,
    }),
  );
};
