/** Writes docs/errors.md from the error catalog. */
import fs from 'node:fs';
import { ERROR_CATALOG, ERROR_CATALOG_VERSION } from '../src/platform/errors.js';

const rows = Object.entries(ERROR_CATALOG).map(([code, e]) => `| ${e.status} | ${e.category} | \`${code}\` | ${e.message} |`);
fs.writeFileSync(
  'docs/errors.md',
  [
    '# Error catalog',
    '',
    `Catalog version ${ERROR_CATALOG_VERSION}. Generated from \`src/platform/errors.ts\` by \`npx tsx scripts/write-errors-doc.ts\`.`,
    'Publishing API errors are `ErrorResponse` bodies; tool API errors (`/api/v1/tools/...`) are',
    '`{object: "tool_api.error", error: {code, message}}`.',
    '',
    '| Status | Category | Code | Meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
