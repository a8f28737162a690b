/** `npm run generate -w @platform/openapi`: rewrites openapi.json and docs/errors.md from the sources (run after a build). */
import { writeFileSync } from 'node:fs';
import { renderOpenApiJson } from './document';
import { renderErrorsGuide } from './errors-guide';
import { ERRORS_GUIDE_FILE, OPENAPI_JSON_FILE } from './paths';

writeFileSync(OPENAPI_JSON_FILE, renderOpenApiJson());
writeFileSync(ERRORS_GUIDE_FILE, renderErrorsGuide());
process.stdout.write(`wrote ${OPENAPI_JSON_FILE}\nwrote ${ERRORS_GUIDE_FILE}\n`);
