import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { openToolKeys } from '../../src/main/cli-root.js';
import { toolCommands } from '../../src/modules/tools/tools.cli.js';
import { BIN } from '../support/service-process.js';

const execFileAsync = promisify(execFile);

describe('users and tool-keys CLI commands', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tools-cli-'));
  const env = { SERVICE_DATA_DIR: dataDir, SERVICE_LOG_LEVEL: 'silent' };
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  /** Runs a command in this process (the same code the binary dispatches to) and returns its output. */
  const command = async (...argv: string[]): Promise<unknown> => {
    const cmd = toolCommands(openToolKeys)
      .sort((a, b) => b.name.length - a.name.length)
      .find((c) => argv.join(' ').startsWith(c.name));
    assert.ok(cmd, argv.join(' '));
    let printed: unknown;
    await cmd.run({ config: loadConfig(env), argv: argv.slice(cmd.name.split(' ').length), out: (value) => (printed = value) });
    return printed;
  };

  it('creates a user and a key through the binary, lists it masked, changes the tier and revokes the key', async () => {
    const user = (await command('users', 'create', '--email', 'cli@example.test', '--tier', 'pro', '--init', '--json')) as { tier: string };
    assert.equal(user.tier, 'pro');
    const { stdout } = await execFileAsync(
      process.execPath,
      [BIN, 'tool-keys', 'create', '--email', 'cli@example.test', '--scopes', 'tools:qrcode:generate', '--json'],
      { env: { ...process.env, ...env, DATABASE_URL: '', REDIS_URL: '' }, timeout: 120_000 },
    );
    const key = JSON.parse(stdout);
    assert.match(key.apiKey, /^tk_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{32}$/);
    assert.deepEqual(key.scopes, ['tools:qrcode:generate']);
    const tier = (await command('users', 'set-tier', '--email', 'cli@example.test', '--tier', 'max')) as {
      tier: string;
      previousTier: string;
    };
    assert.deepEqual([tier.previousTier, tier.tier], ['pro', 'max']);
    await command('tool-keys', 'revoke', key.apiKeyId);
    await assert.rejects(command('tool-keys', 'create', '--email', 'cli@example.test', '--scopes', 'tools:unknown'), /Unknown scope/);
    await assert.rejects(command('users', 'set-tier', '--email', 'cli@example.test', '--tier', 'gold'), /Unknown tier/);
  });

  it('tool-keys list prints masked keys and never the secret', async () => {
    const key = (await command('tool-keys', 'create', '--email', 'cli@example.test')) as { apiKey: string; prefix: string };
    const writes: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => writes.push(String(chunk)) > 0) as typeof process.stdout.write;
    try {
      await command('tool-keys', 'list', '--email', 'cli@example.test', '--json');
    } finally {
      process.stdout.write = write;
    }
    const listed = writes.join('');
    assert.ok(!listed.includes(key.apiKey.slice(12)));
    const entries = JSON.parse(listed) as Array<{ maskedKey: string; status: string }>;
    assert.deepEqual(
      entries.map((e) => e.status),
      ['revoked', 'active'],
    );
    assert.equal(entries[1]?.maskedKey, `${key.prefix}_…${key.apiKey.slice(-4)}`);
  });
});
