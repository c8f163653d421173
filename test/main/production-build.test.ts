/**
 * The production bundle (`npm run build`) run the way production runs it: plain JavaScript, no TypeScript
 * loader, modules the code imports dynamically loaded from their own chunks on first use (the sandbox, the
 * MCP runtime, the feed parser; scripts/bundle-options.ts). Built into test-output/ (dist/ is a developer's
 * build; the two test passes run at once) with the same function as `npm run build`, two levels below the
 * repository's root in a directory of this process: the bundle carries its version (scripts/bundle-options.ts),
 * so it does not depend on sitting where dist/main/cli.js does.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildService } from '../../scripts/build-service.js';
import { fetchFresh, freePort, runCliOf, type ServiceProcess, serviceEnv, startService } from '../support/service-process.js';

describe('the production build', () => {
  const top = path.resolve(import.meta.dirname, `../../.build-test-${process.pid}`);
  const out = path.join(top, 'nested');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-api-build-'));
  let cli = '';
  let env: Record<string, string> = {};
  let service: ServiceProcess | null = null;

  before(async () => {
    cli = await buildService(out);
    // sandbox mode: the simulators (and the platforms' descriptions, openapi-backend) load from their chunk
    env = serviceEnv(dataDir, await freePort(), { SERVICE_PROVIDER_MODE: 'sandbox' });
    service = await startService(env, 180_000, cli);
  });
  after(async () => {
    await service?.stop();
    fs.rmSync(top, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the modules loaded on first use out of the entry: the MCP SDK, openapi-backend and the feed parser are in chunks', () => {
    const entry = fs.readFileSync(cli, 'utf8');
    // a static import of these would load them in every process at start
    assert.doesNotMatch(entry, /^import .* from "@modelcontextprotocol\//m);
    assert.doesNotMatch(entry, /^import .* from "openapi-backend"/m);
    assert.doesNotMatch(entry, /^import .* from "@rowanmanning\/feed-parser"/m);
    assert.match(entry, /import\("@rowanmanning\/feed-parser"\)/);
    const chunks = fs.readdirSync(out).filter((f) => f.endsWith('.js'));
    assert.ok(
      chunks.some((f) => f.startsWith('mcp.runtime-')),
      chunks.join(', '),
    );
    assert.ok(
      chunks.some((f) => f.startsWith('sandbox.plugin-')),
      chunks.join(', '),
    );
  });

  it('starts on the embedded default with the sandbox (a chunk), and a tool key draws a PNG QR code in its worker thread', async () => {
    assert.ok(service);
    assert.match(service.output(), /^ {2}platforms +sandbox/m);
    // the version written into the bundle (package.json is not where a dist/main/cli.js would look for it)
    const { version } = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
    assert.ok(service.output().includes(`service-api ${version}: API + worker`), service.output().slice(0, 300));
    // a simulator answers (the sandbox chunk loaded and mounted its routes)
    const simulated = await fetchFresh(`${service.base}/sandbox/x/2/users/me`);
    const answer = await simulated.text();
    assert.equal(simulated.status, 401, answer);
    const email = `build-${process.pid}@example.test`;
    const user = runCliOf(cli, env, 'users', 'create', '--email', email, '--tier', 'max', '--json');
    assert.equal(user.status, 0, user.stderr);
    const key = runCliOf(cli, env, 'tool-keys', 'create', '--email', email, '--scopes', 'tools:*', '--json');
    assert.equal(key.status, 0, key.stderr);
    const { apiKey } = JSON.parse(key.stdout) as { apiKey: string };
    const res = await fetchFresh(`${service.base}/api/v1/tools/qrcode/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'https://shop.example.com/item-42', format: 'png', size: 256 }),
    });
    const body = (await res.json()) as { qrcode?: { dataUrl?: string } };
    assert.equal(res.status, 200, JSON.stringify(body));
    const png = Buffer.from(body.qrcode?.dataUrl?.replace(/^data:image\/png;base64,/, '') ?? '', 'base64');
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
  });

  it('serves MCP on stdio from its chunk: initialize and the tool list', async () => {
    assert.ok(service);
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build-test', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    const mcp = spawnSync(process.execPath, [cli, 'mcp', '--base-url', service.base, '--token', 'sk_not_used_by_tools_list'], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
      input: `${messages.map((m) => JSON.stringify(m)).join('\n')}\n`,
    });
    assert.equal(mcp.status, 0, mcp.stderr);
    const answers = mcp.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id?: number; result?: { tools?: { name: string }[] } });
    const list = answers.find((a) => a.id === 2);
    assert.ok(list?.result?.tools && list.result.tools.length > 5, mcp.stdout);
    assert.ok(
      list.result.tools.some((t) => t.name === 'list_channel_accounts'),
      list.result.tools.map((t) => t.name).join(', '),
    );
  });
});
