/**
 * OAuth apps no longer take a client secret reference from a tenant: references are an operator
 * feature (the CLI) limited to the entries of SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS. Every reference
 * stored so far was named by a tenant through the API and could point at any server variable, so it is
 * removed: such an app has no secret (clientSecretSource `none`, the token endpoint answers
 * invalid_client) until an admin rotates it (PATCH rotateSecret: true, a generated secret shown once)
 * or the operator provisions it again with the CLI. Its grants and tokens are kept.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`update oauth_apps set client_secret_ref = null where client_secret_ref is not null`.execute(db);
}

export async function down(): Promise<void> {
  // the removed references are not restored: they were never the operator's
}
