/**
 * The CLI's refusals and its OAuth app command, next to a running embedded server (a file of its own: each
 * CLI call starts a process, and one file holding every CLI test outlasted its time limit on a loaded host).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, freePort, runCli, type ServiceProcess, serviceEnv, startService } from '../support/service-process.js';

describe('service-api CLI: refusals and OAuth apps', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-api-cli-input-'));
  let env: Record<string, string>;
  let service: ServiceProcess;
  let boot: { organizationId: string };
  const cli = (...args: string[]) => runCli(env, ...args);

  before(async () => {
    env = serviceEnv(dataDir, await freePort());
    service = await startService(env);
    const res = cli('bootstrap', '--organization', 'Acme', '--email', 'admin@acme.test', '--password', 'correct horse', '--json');
    assert.equal(res.status, 0, res.stderr);
    boot = JSON.parse(res.stdout);
  });

  after(async () => {
    await service?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('bad input prints one clear line and no stack trace', () => {
    for (const args of [
      ['bootstrap', '--organization', 'X', '--email', 'not-an-email', '--password', 'correct horse'],
      ['api-keys', 'create', '--organization', boot.organizationId, '--scopes', 'everything:now'],
      ['brands', 'create', '--organization', 'org_missing', '--name', 'X'],
      ['brands', 'create', '--organization', boot.organizationId, '--name', 'Y', '--timezone', 'Mars/Olympus'],
      ['brands', 'create', '--bogus-flag'],
      ['frobnicate'],
      ['api'],
      // a common password, and an OAuth secret reference that is not an entry of its setting
      ['bootstrap', '--organization', 'Weak', '--email', 'weak@acme.test', '--password', 'password'],
      [
        'oauth-apps',
        'create',
        '--organization',
        boot.organizationId,
        '--name',
        'P',
        '--redirect-uri',
        'https://p.test/cb',
        '--scopes',
        'brands:read',
        '--client-secret-ref',
        'env:PATH',
      ],
    ]) {
      const res = cli(...args);
      assert.equal(res.status, 1, args.join(' '));
      assert.match(res.stderr, /^error: /m, args.join(' '));
      assert.doesNotMatch(res.stderr, /\n\s+at /, `stack trace for ${args.join(' ')}`);
      if (args.includes('Weak')) assert.match(res.stderr, /password_policy_violation/);
      if (args.includes('env:PATH')) assert.match(res.stderr, /SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS/);
    }
    assert.match(cli('api').stderr, /database_url_required/);
  });

  it('oauth-apps create: a generated secret shown once, or an operator reference to an entry of its setting', () => {
    const generated = JSON.parse(
      cli(
        'oauth-apps',
        'create',
        '--organization',
        boot.organizationId,
        '--name',
        'Gen',
        '--redirect-uri',
        'https://p.test/cb',
        '--scopes',
        'brands:read',
        '--json',
      ).stdout,
    );
    assert.equal(generated.oauthApp.clientSecretSource, 'stored_hash');
    assert.match(generated.clientSecret, /\S{20,}/);
    const withRef = spawnSync(
      process.execPath,
      [
        BIN,
        'oauth-apps',
        'create',
        '--organization',
        boot.organizationId,
        '--name',
        'Partner',
        '--redirect-uri',
        'https://p.test/cb',
        '--scopes',
        'brands:read',
        '--client-secret-ref',
        'env:PARTNER',
        '--json',
      ],
      { env: { ...env, SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS: 'PARTNER=partner-secret-1' }, encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(withRef.status, 0, withRef.stderr);
    const made = JSON.parse(withRef.stdout);
    assert.deepEqual(
      [made.oauthApp.clientSecretSource, made.oauthApp.clientSecretRef, made.clientSecret],
      ['reference', 'env:PARTNER', null],
    );
    assert.ok(!withRef.stdout.includes('partner-secret-1'));
  });
});
