/**
 * `service-api mcp` (stdio, with an API key) as an agent uses it: the MCP SDK's own client lists the
 * tools, previews a plan, reads the validation issues, fixes the text, sees that an unconfirmed publish
 * changes nothing, publishes with confirm and sees the job published. The same tool list serves the
 * service's /mcp endpoint (test/mcp/remote-mcp.test.ts). A wrong base URL fails naming the URL.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serviceArgs } from '../support/service-process.js';
import { type SandboxServer, startSandboxServer } from './sandbox-server.js';

type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean };
const json = (r: unknown) => JSON.parse((r as ToolResult).content[0]!.text) as Record<string, any>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('@service-api/mcp', () => {
  let s: SandboxServer;
  let client: Client;
  const stdio = (env: Record<string, string>) =>
    new StdioClientTransport({
      command: process.execPath,
      args: serviceArgs('mcp'),
      env: { ...(process.env as Record<string, string>), SERVICE_LOG_LEVEL: 'silent', ...env },
      stderr: 'ignore',
    });
  before(async () => {
    s = await startSandboxServer();
    client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(stdio({ SERVICE_API_BASE_URL: s.base, SERVICE_API_TOKEN: s.token }));
  });
  after(async () => {
    await client.close();
    await s.close();
  });

  it('lists the agent workflow as tools whose input schemas are the API request schemas', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of [
      'list_brands',
      'list_channel_accounts',
      'preview_publish_plan',
      'publish',
      'get_publish_job',
      'find_publish_slot',
      'upload_media_from_url',
    ])
      assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
    const publish = tools.find((t) => t.name === 'publish')!;
    assert.match(publish.description ?? '', /Dry run by default/);
    assert.equal(publish.inputSchema.additionalProperties, false);
    const props = publish.inputSchema.properties as Record<string, any>;
    assert.ok(props.plan && props.confirm && !props.dryRun, Object.keys(props).join(','));
    assert.deepEqual(props.plan.required?.slice().sort(), ['brandId', 'text']);
    // the preview takes the same plan as publish (its widest shape)
    const preview = tools.find((t) => t.name === 'preview_publish_plan')!.inputSchema.properties as Record<string, unknown>;
    assert.deepEqual(Object.keys(preview).sort(), Object.keys(props.plan.properties).sort());
    assert.ok(tools.find((t) => t.name === 'list_brands')!.annotations?.readOnlyHint);
  });

  it('previews, fixes the issue it reports, publishes only with confirm, and sees the job published', async () => {
    const plan = {
      brandId: s.brandId,
      text: `${'long '.repeat(70)}`,
      media: [] as unknown[],
      targets: [{ platform: 'x', channelAccountId: s.channelAccountId }],
    };
    const first = json(await client.callTool({ name: 'preview_publish_plan', arguments: plan }));
    assert.equal(first.valid, false);
    const issue = JSON.stringify(first);
    assert.match(issue, /x/);
    plan.text = 'Short enough for X.';
    assert.equal(json(await client.callTool({ name: 'preview_publish_plan', arguments: plan })).valid, true);

    const dry = json(await client.callTool({ name: 'publish', arguments: { plan } }));
    assert.equal(dry.mode, 'dry_run');
    const listed = json(await client.callTool({ name: 'list_publish_jobs', arguments: {} }));
    assert.equal(listed.data.length, 0, 'an unconfirmed publish created nothing');

    const done = json(await client.callTool({ name: 'publish', arguments: { plan, confirm: true } }));
    assert.ok(done.publishJobId, JSON.stringify(done));
    let status = '';
    for (let i = 0; i < 100 && status !== 'published'; i++) {
      status = json(await client.callTool({ name: 'get_publish_job', arguments: { publishJobId: done.publishJobId } })).status;
      if (status !== 'published') await sleep(100);
    }
    assert.equal(status, 'published');
  });

  it('answers API errors as tool errors carrying the ErrorResponse, and confirm-only writes do nothing unconfirmed', async () => {
    const bad = (await client.callTool({
      name: 'get_publish_job',
      arguments: { publishJobId: 'pjob_01J00000000000000000000000' },
    })) as ToolResult;
    assert.equal(bad.isError, true);
    const body = JSON.parse(bad.content[0]!.text);
    assert.ok([400, 404].includes(body.status), bad.content[0]!.text);
    assert.ok(body.error && body.requestId);
    const cancel = json(
      await client.callTool({ name: 'cancel_publish_job', arguments: { publishJobId: 'pjob_01J00000000000000000000000' } }),
    );
    assert.equal(cancel.performed, false);
  });

  it('refuses unknown arguments as the API does', async () => {
    const r = (await client.callTool({ name: 'list_brands', arguments: { brand: 'x' } })) as ToolResult;
    assert.equal(r.isError, true);
    assert.equal(JSON.parse(r.content[0]!.text).error, 'invalid_request');
    assert.match(r.content[0]!.text, /Unknown argument brand/);
  });

  it('a wrong base URL fails with a message naming the URL, and --http points to /mcp', () => {
    const wrong = spawnSync(process.execPath, serviceArgs('mcp'), {
      env: { ...process.env, SERVICE_API_BASE_URL: 'http://127.0.0.1:9', SERVICE_API_TOKEN: 'sk_test', SERVICE_LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      input: '',
    });
    assert.notEqual(wrong.status, 0);
    assert.match(wrong.stderr, /Could not reach the API at http:\/\/127\.0\.0\.1:9/);
    const http = spawnSync(process.execPath, serviceArgs('mcp', '--http', '3001'), {
      env: { ...process.env, SERVICE_API_TOKEN: 'sk_test', SERVICE_LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    });
    assert.notEqual(http.status, 0);
    assert.match(http.stderr, /\/mcp/);
  });
});
