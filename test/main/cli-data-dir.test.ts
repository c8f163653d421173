import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { BIN } from '../support/service-process.js';

describe('service-api CLI on a data directory without a database', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-api-cli-empty-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const cli = (...args: string[]) => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>), SERVICE_DATA_DIR: path.join(dataDir, 'typo') };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    return spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  };

  it('refuses to create a new embedded database outside the default directory without --init, and says which database it opened', () => {
    const listed = cli('organizations', 'list');
    assert.equal(listed.status, 1);
    assert.match(listed.stderr, /^error: no database in .*typo yet/m);
    const refused = cli('bootstrap', '--organization', 'Typo', '--email', 'a@typo.test', '--password', 'correct horse');
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /pass --init to create a new one/);
    const migrate = cli('migrate');
    assert.equal(migrate.status, 1);
    assert.match(migrate.stderr, /pass --init to create a new one/);
    assert.equal(fs.existsSync(path.join(dataDir, 'typo', 'pgdata')), false, 'nothing was created');
    const created = cli('bootstrap', '--organization', 'Typo', '--email', 'a@typo.test', '--password', 'correct horse', '--init', '--json');
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stderr, /^database: embedded PGlite in .*typo \(new\)$/m);
    const again = cli('organizations', 'list', '--json');
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr, /^database: embedded PGlite in .*typo$/m);
    assert.equal((JSON.parse(again.stdout) as unknown[]).length, 1);
    const migrated = cli('migrate', '--json');
    assert.equal(migrated.status, 0, migrated.stderr);
    assert.match(migrated.stderr, /^database: embedded PGlite in .*typo$/m);
    assert.deepEqual(JSON.parse(migrated.stdout), { migrated: [] });
  });

  it('every list command answers --json and a readable table, and help prints the usage', () => {
    const help = cli('--help');
    assert.equal(help.status, 0);
    for (const command of [
      'organizations list',
      'brands list',
      'products list',
      'api-keys list',
      'api-keys revoke',
      'channels list',
      'jobs list',
      'jobs show',
    ])
      assert.match(help.stdout, new RegExp(`^  ${command} .*--json`, 'm'), command);
    // (brands, products, channels and jobs lists: cli.test.ts)
    const orgs = cli('organizations', 'list');
    assert.equal(orgs.status, 0, orgs.stderr);
    assert.match(orgs.stdout, /^organizationId\s+name\s+brands\s+activeApiKeys\s+createdAt\n-+\s+-+/);
    const org = /^(org_\S+)\s+Typo\s/m.exec(orgs.stdout)?.[1];
    assert.ok(org, orgs.stdout);
    const keys = cli('api-keys', 'list', '--organization', org);
    assert.equal(keys.status, 0, keys.stderr);
    assert.match(keys.stdout, /^apiKeyId\s+name\s+prefix\s+scopes\s+state\s+lastUsedAt\s+createdAt\n-+/);
    assert.match(keys.stdout, /\sactive\s/);
  });

  it('an unknown command is named by its command words only, followed by the usage', () => {
    const res = cli('brands', 'frobnicate', '--organization', 'org_secret_value');
    assert.equal(res.status, 1);
    assert.match(res.stderr, /^error: unknown command "brands frobnicate"$/m);
    assert.doesNotMatch(res.stderr, /org_secret_value/);
    assert.match(res.stderr, /usage: service-api <command>/);
  });
});
