import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

const BIN = path.resolve(import.meta.dirname, '../../bin/service-api.mjs');

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
    assert.equal(fs.existsSync(path.join(dataDir, 'typo', 'pgdata')), false, 'nothing was created');
    const created = cli('bootstrap', '--organization', 'Typo', '--email', 'a@typo.test', '--password', 'correct horse', '--init', '--json');
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stderr, /^database: embedded PGlite in .*typo \(new\)$/m);
    const again = cli('organizations', 'list', '--json');
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr, /^database: embedded PGlite in .*typo$/m);
    assert.equal((JSON.parse(again.stdout) as unknown[]).length, 1);
  });

  it('an unknown command is named by its command words only, followed by the usage', () => {
    const res = cli('brands', 'frobnicate', '--organization', 'org_secret_value');
    assert.equal(res.status, 1);
    assert.match(res.stderr, /^error: unknown command "brands frobnicate"$/m);
    assert.doesNotMatch(res.stderr, /org_secret_value/);
    assert.match(res.stderr, /usage: service-api <command>/);
  });
});
