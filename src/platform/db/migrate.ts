import { type Kysely, type MigrationProvider, Migrator } from 'kysely';
import { migrations } from './migrations/index.js';

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Runs pending migrations; throws with the failing migration's name on error. Returns the names run. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'service_migrations',
    migrationLockTableName: 'service_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const name = failed?.migrationName ?? 'unknown';
    throw new Error(`migration ${name} failed: ${(error as Error)?.message ?? 'unknown error'}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
