/** The adapter's API version record must follow the vendored description it names. */
import assert from 'node:assert/strict';
import { loadContract } from '../../src/platform/contracts/contracts.js';
import type { PlatformApiVersion } from '../../src/providers/shared/api-version.js';

export async function assertRecordFollowsDescription(record: PlatformApiVersion): Promise<void> {
  const contract = await loadContract(record.contract);
  assert.equal(record.descriptionVersion, contract.version, `${record.version}: the record names another description version`);
  assert.equal(
    record.descriptionDate,
    contract.source.committedAt.slice(0, 10),
    `${record.version}: the record names another description date`,
  );
}
