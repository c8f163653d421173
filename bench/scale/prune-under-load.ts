/**
 * Hook for the measurement "prune a year of rows while the API is under load": the p99 of a read route
 * before and during the maintenance job's retention prune. The prune belongs to the maintenance area
 * (src/modules/maintenance); until it has one, this reports that it was skipped.
 */
import type { TestContext } from '../../test/support/harness.js';

export async function pruneUnderLoad(_ctx: TestContext, _auth: Record<string, string>, log: (s: string) => void): Promise<void> {
  log('  prune under load: skipped (the maintenance job has no retention prune yet)');
}
