/**
 * @service-api/mcp as an agent uses it: the MCP SDK's own client over Streamable HTTP lists the tools,
 * previews a plan, reads the validation issues, fixes the text, sees that an unconfirmed publish
 * changes nothing, publishes with confirm and sees the job published. Also `service-api mcp` on stdio.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveHttp } from '@service-api/mcp';
import { type SandboxServer, startSandboxServer } from './sandbox-server.js';

type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean };
const json = (r: unknown) => JSON.parse((r as ToolResult).content[0]!.text) as Record<string, any>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('@service-api/mcp', () => {
  let s: SandboxServer;
  let mcp: { url: string; close(): Promise<void> };
  let client: Client;
  before(async () => {
    s = await startSandboxServer();
    mcp = await serveHttp({ baseUrl: s.base, token: s.token, port: 0 });
    client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
  });
  after(async () => {
    await client.close();
    await mcp.close();
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
      'import_media',
    ])
      assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
    const publish = tools.find((t) => t.name === 'publish')!;
    assert.match(publish.description ?? '', /Dry run by default/);
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

    const dry = json(await client.callTool({ name: 'publish', arguments: { plan, enqueue: true } }));
    assert.equal(dry.mode, 'dry_run');
    const listed = json(await client.callTool({ name: 'list_publish_jobs', arguments: {} }));
    assert.equal(listed.data.length, 0, 'an unconfirmed publish created nothing');

    const done = json(await client.callTool({ name: 'publish', arguments: { plan, enqueue: true, confirm: true } }));
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

  it('runs on stdio as `service-api mcp`', async () => {
    const stdio = new Client({ name: 'stdio-agent', version: '1.0.0' });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', 'src/main/cli.ts', 'mcp'],
        env: {
          ...(process.env as Record<string, string>),
          SERVICE_API_BASE_URL: s.base,
          SERVICE_API_TOKEN: s.token,
          SERVICE_LOG_LEVEL: 'silent',
        },
        stderr: 'ignore',
      }),
    );
    try {
      const brands = json(await stdio.callTool({ name: 'list_brands', arguments: {} }));
      assert.deepEqual(
        brands.data.map((b: { brandId: string }) => b.brandId),
        [s.brandId],
      );
    } finally {
      await stdio.close();
    }
  });
});
