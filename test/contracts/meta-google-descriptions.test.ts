/**
 * The converted descriptions (YouTube from Google's discovery document, the Meta hosts from Meta's node
 * specs, Threads from its hand-described operations) are what their vendored sources build: a source
 * refreshed or an operation added without rebuilding fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { buildDescriptions } from '../../scripts/contracts/build-meta-google.js';

describe('converted descriptions', () => {
  test('each committed openapi.json is what its vendored source builds', () => {
    for (const [name, doc] of Object.entries(buildDescriptions())) {
      const committed = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../contracts', name, 'openapi.json'), 'utf8'));
      assert.deepEqual(committed, doc, `contracts/${name}/openapi.json: run node --import tsx scripts/contracts/build-meta-google.ts`);
    }
  });
});
