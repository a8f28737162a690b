import { join } from 'node:path';

/** The workspace folder (src/ and dist/ both sit one level below it). */
export const OPENAPI_WORKSPACE_DIR = join(__dirname, '..');
export const OPENAPI_JSON_FILE = join(OPENAPI_WORKSPACE_DIR, 'openapi.json');
export const ERRORS_GUIDE_FILE = join(OPENAPI_WORKSPACE_DIR, '..', '..', 'docs', 'errors.md');
/**
 * The reference as one self-contained HTML page (Redoc, prerendered and inlined), rendered
 * from openapi.json by this workspace's build (`redocly build-docs`), so nothing renders it
 * at run time and the page needs no CDN.
 */
export const REFERENCE_HTML_FILE = join(OPENAPI_WORKSPACE_DIR, 'dist', 'reference.html');
