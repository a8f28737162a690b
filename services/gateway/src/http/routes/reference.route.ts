/**
 * The API reference, outside /v1: no authentication and no rate limit (it holds
 * nothing partner-specific), but still behind the request-id step.
 *   GET /openapi.json               the OpenAPI 3.1 document (@platform/openapi)
 *   GET /docs                       a page rendering it with Redoc
 *   GET /docs/redoc.standalone.js   Redoc's self-contained bundle, served from
 *                                   node_modules: no CDN (machines may be offline)
 * Each answer carries a strong ETag (SHA-256 of its bytes) and a public max-age,
 * so browsers and proxies revalidate cheaply; If-None-Match answers 304.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RequestHandler } from 'express';
import { openApiDocument } from '@platform/openapi';

/** The document changes only with a deploy; five minutes keeps a rollout visible quickly. */
const DOCUMENT_MAX_AGE_SECONDS = 300;
/** The bundle is pinned by the gateway's dependency version. */
const BUNDLE_MAX_AGE_SECONDS = 86_400;

export const REDOC_BUNDLE_PATH = '/docs/redoc.standalone.js';

interface StaticAsset {
  body: Buffer;
  contentType: string;
  etag: string;
  maxAgeSeconds: number;
}

function asset(body: Buffer, contentType: string, maxAgeSeconds: number): StaticAsset {
  return { body, contentType, maxAgeSeconds, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
}

function serveAsset(load: () => StaticAsset): RequestHandler {
  let loaded: StaticAsset | undefined;
  return (req, res) => {
    loaded ??= load();
    res.setHeader('Cache-Control', `public, max-age=${loaded.maxAgeSeconds}`);
    res.setHeader('ETag', loaded.etag);
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (req.headers['if-none-match'] === loaded.etag) {
      res.status(304).end();
      return;
    }
    res.status(200).type(loaded.contentType).send(loaded.body);
  };
}

const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Partner API reference</title>
  <style>body { margin: 0; padding: 0; }</style>
</head>
<body>
  <redoc spec-url="/openapi.json" hide-download-button="false" expand-responses="200,201,202"></redoc>
  <script src="${REDOC_BUNDLE_PATH}"></script>
</body>
</html>
`;

export const openApiJsonHandler = (): RequestHandler =>
  serveAsset(() => asset(Buffer.from(JSON.stringify(openApiDocument())), 'application/json; charset=utf-8', DOCUMENT_MAX_AGE_SECONDS));

export const docsPageHandler = (): RequestHandler =>
  serveAsset(() => asset(Buffer.from(DOCS_PAGE), 'text/html; charset=utf-8', DOCUMENT_MAX_AGE_SECONDS));

export const redocBundleHandler = (): RequestHandler =>
  serveAsset(() => asset(readFileSync(require.resolve('redoc/bundles/redoc.standalone.js')), 'application/javascript; charset=utf-8', BUNDLE_MAX_AGE_SECONDS));
