import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { GENERATED_PATH, generateSdkTypes } from '../../scripts/generate-sdk.js';

describe('@service-api/sdk generated types', () => {
  it('match the OpenAPI document the service serves (run `npm run sdk:generate` when this fails)', async () => {
    const committed = fs.readFileSync(GENERATED_PATH, 'utf8');
    assert.ok(committed === (await generateSdkTypes()), `${GENERATED_PATH} is stale: run npm run sdk:generate`);
  });
});
