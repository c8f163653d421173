/** The CLI changes a tier and revokes a key of a running embedded server through its database socket: the next request sees it. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { openToolKeys } from '../../src/main/cli-root.js';
import { type Runtime, startRuntime } from '../../src/main/runtime.js';
import { toolCommands } from '../../src/modules/tools/tools.cli.js';
import { QR_PATH } from './tool-http.support.js';

const svg = { text: 'hi', format: 'svg' };

describe('embedded server: the CLI reaches the auth cache through the database socket', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tools-auth-cache-'));
  const env = { SERVICE_DATA_DIR: dataDir, SERVICE_LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', REDIS_URL: '' };
  let runtime: Runtime;

  before(async () => {
    runtime = await startRuntime(loadConfig({ ...process.env, ...env }), 'api');
  });
  after(async () => {
    await runtime?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const command = async (...argv: string[]): Promise<any> => {
    const cmd = toolCommands(openToolKeys)
      .sort((a, b) => b.name.length - a.name.length)
      .find((c) => argv.join(' ').startsWith(c.name));
    assert.ok(cmd, argv.join(' '));
    let printed: unknown;
    await cmd.run({
      config: loadConfig({ ...process.env, ...env }),
      argv: argv.slice(cmd.name.split(' ').length),
      out: (value) => (printed = value),
    });
    return printed;
  };
  const qr = (key: string) =>
    fetch(`${runtime.address}${QR_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(svg),
    });

  it('set-tier and revoke from the CLI apply to the next request', async () => {
    await command('users', 'create', '--email', 'cache@example.test', '--tier', 'pro', '--json');
    const key = await command('tool-keys', 'create', '--email', 'cache@example.test', '--json');
    const first = await qr(key.apiKey);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-quota-limit'), '500');
    await command('users', 'set-tier', '--email', 'cache@example.test', '--tier', 'max');
    assert.equal((await qr(key.apiKey)).headers.get('x-quota-limit'), '5000');
    await command('tool-keys', 'revoke', key.apiKeyId);
    assert.equal((await qr(key.apiKey)).status, 401);
  });
});
