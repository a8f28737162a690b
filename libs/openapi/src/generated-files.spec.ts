/**
 * Proves the committed openapi.json and docs/errors.md are what the sources
 * (route table, schemas, error catalogue) generate today. A new error code or
 * route without a regenerated file fails here, naming the command that fixes it.
 */
import { readFileSync } from 'node:fs';
import { renderOpenApiJson } from './document';
import { renderErrorsGuide } from './errors-guide';
import { ERRORS_GUIDE_FILE, OPENAPI_JSON_FILE } from './paths';

const FIX =
  'stale: run `npx turbo run build --filter=@platform/openapi && npm run generate -w @platform/openapi` and commit the result';

describe('generated files', () => {
  it('openapi.json matches the document built from the sources', () => {
    const committed = readFileSync(OPENAPI_JSON_FILE, 'utf8');
    if (committed !== renderOpenApiJson()) throw new Error(`libs/openapi/openapi.json is ${FIX}`);
  });

  it('docs/errors.md matches the error catalogue', () => {
    const committed = readFileSync(ERRORS_GUIDE_FILE, 'utf8');
    if (committed !== renderErrorsGuide()) throw new Error(`docs/errors.md is ${FIX}`);
  });
});
