/** The one assertion for an adapter call that must fail with a ProviderError of a category (and code). */
import assert from 'node:assert/strict';
import { ProviderError } from '../../src/providers/provider.js';

export async function rejectsWith(promise: Promise<unknown>, category: string, providerCode?: string): Promise<ProviderError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ProviderError, `expected ProviderError, got ${String(err)}`);
    assert.equal(err.category, category, `${err.category}: ${err.message}`);
    if (providerCode !== undefined) assert.equal(err.providerCode, providerCode);
    return err;
  }
  assert.fail(`expected a ${category} ProviderError`);
}
