import { join } from 'node:path';

/** The workspace folder (src/ and dist/ both sit one level below it). */
export const OPENAPI_WORKSPACE_DIR = join(__dirname, '..');
export const OPENAPI_JSON_FILE = join(OPENAPI_WORKSPACE_DIR, 'openapi.json');
export const ERRORS_GUIDE_FILE = join(OPENAPI_WORKSPACE_DIR, '..', '..', 'docs', 'errors.md');
