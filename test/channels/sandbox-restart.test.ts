/**
 * Sandbox mode across a restart, as a user runs it: `service-api start` on a data dir, connect X and a
 * Facebook Page through the built-in simulators, publish, stop, start again on the same data dir. The
 * simulators' worlds were kept in <dataDir>/sandbox/, so the channels' tokens still work and the posts
 * and comments made before the restart are still there. Also: the worker's one log line per outcome.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fetchFresh, freePort, runCli, type ServiceProcess, serviceEnv, startService } from '../support/service-process.js';

describe('sandbox mode keeps the simulators in the data dir across a restart', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-api-sandbox-restart-'));
  let env: Record<string, string>;
  let service: ServiceProcess;
  let org: { organizationId: string; apiKey: string };
  let brandId: string;
  const channels: Record<string, string> = {};
  const firstPosts: Record<string, { providerPostId: string; postTargetId: string }> = {};

  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetchFresh(`${service.base}${p}`, {
      method,
      headers: { authorization: `Bearer ${org.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };

  async function connect(platform: string): Promise<string> {
    const url = await api('POST', '/v1/channel-accounts/connect-url', { platform, brandId });
    assert.equal(url.status, 200, JSON.stringify(url.body));
    const consent = await fetchFresh(url.body.authorizationUrl);
    assert.equal(consent.status, 302, await consent.text());
    const callback = await fetchFresh(consent.headers.get('location')!);
    const done = (await callback.json()) as { result: string; channelAccountId: string; choices?: Array<{ externalAccountId: string }> };
    if (done.result === 'in_between_steps') {
      const sel = await api('POST', `/v1/channel-accounts/${done.channelAccountId}/select`, {
        organizationId: org.organizationId,
        externalAccountId: done.choices![0]!.externalAccountId,
      });
      assert.equal(sel.status, 200, JSON.stringify(sel.body));
    } else assert.equal(done.result, 'connected', JSON.stringify(done));
    return done.channelAccountId;
  }

  async function publish(text: string) {
    const job = await api('POST', '/v1/agent/publish', {
      dryRun: false,
      enqueue: true,
      plan: { brandId, text, targets: Object.entries(channels).map(([platform, channelAccountId]) => ({ platform, channelAccountId })) },
    });
    assert.equal(job.status, 201, JSON.stringify(job.body));
    for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 250))) {
      const j = await api('GET', `/v1/publish/jobs/${job.body.publishJobId}`);
      if (['published', 'failed', 'partially_published'].includes(j.body.status)) {
        assert.equal(j.body.status, 'published', JSON.stringify(j.body));
        return j.body as {
          publishJobId: string;
          targets: Array<{ postTargetId: string; platform: string; providerPostId: string; providerUrl: string | null }>;
        };
      }
      assert.ok(Date.now() < deadline, `job not done: ${JSON.stringify(j.body)}`);
    }
  }

  before(async () => {
    env = serviceEnv(dataDir, await freePort(), { SERVICE_PROVIDER_MODE: 'sandbox' });
    service = await startService(env);
    const boot = runCli(
      env,
      'bootstrap',
      '--organization',
      'Sandbox Co',
      '--email',
      'sandbox@example.test',
      '--password',
      'correct horse battery',
      '--json',
    );
    assert.equal(boot.status, 0, boot.stderr);
    org = JSON.parse(boot.stdout);
    const brand = runCli(env, 'brands', 'create', '--organization', org.organizationId, '--name', 'Sandbox Brand', '--json');
    assert.equal(brand.status, 0, brand.stderr);
    brandId = JSON.parse(brand.stdout).brandId;
  });
  after(() => {
    service?.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('publishes through the simulators and logs one line per outcome, without secrets', async () => {
    channels.x = await connect('x');
    channels.facebook_page = await connect('facebook_page');
    const job = await publish('Before the restart');
    for (const t of job.targets) firstPosts[t.platform] = { providerPostId: t.providerPostId, postTargetId: t.postTargetId };
    const comment = await fetchFresh(`${service.base}/sandbox/_control/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'facebook_page', providerPostId: firstPosts.facebook_page!.providerPostId, body: 'Still there?' }),
    });
    assert.equal(comment.status, 201, await comment.text());

    // the worker's log: JSON lines (stdout is not a terminal), one per target outcome
    for (const t of job.targets) {
      const lines = service
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{') && l.includes(t.postTargetId))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.state !== undefined);
      assert.equal(lines.length, 1, `${t.platform}: ${service.output()}`);
      const line = lines[0]!;
      assert.equal(line.level, 30, 'info');
      assert.deepEqual(
        [line.postTargetId, line.publishJobId, line.platform, line.state, line.permalink],
        [t.postTargetId, job.publishJobId, t.platform, 'published', t.providerUrl],
      );
      assert.match(String(line.msg), /^publish published: /);
    }
    assert.doesNotMatch(service.output(), /Before the restart/, 'post texts are not logged');
    assert.doesNotMatch(service.output(), new RegExp(org.apiKey), 'API keys are not logged');
  });

  it('after a restart on the same data dir the tokens still work and earlier posts and comments are still there', async () => {
    assert.equal(await service.stop(), 0, service.output());
    for (const family of ['meta', 'x', 'google', 'pinterest', 'tiktok'])
      assert.ok(fs.existsSync(path.join(dataDir, 'sandbox', `${family}.json`)), `${family}.json written at shutdown`);
    service = await startService(env);
    assert.match(service.output(), /sandbox: simulators restored from the data dir/);

    const listed = await api('GET', '/v1/channel-accounts');
    for (const id of Object.values(channels))
      assert.equal(listed.body.data.find((c: { channelAccountId: string }) => c.channelAccountId === id)?.state, 'connected');
    // the tokens issued before the restart are known: provider tools and a new publish work
    const tool = await api('POST', '/v1/providers/tools/communitySearch', { channelAccountId: channels.x, input: { query: 'sandbox' } });
    assert.equal(tool.status, 200, JSON.stringify(tool.body));
    const again = await publish('After the restart');
    for (const t of again.targets) assert.notEqual(t.providerPostId, firstPosts[t.platform]!.providerPostId, 'a new post, not a reused id');

    // the earlier Facebook post still has its comment, read through the platform's comment API
    const sync = await api('POST', '/v1/social-comments/sync', {
      organizationId: org.organizationId,
      brandId,
      channelAccountId: channels.facebook_page,
      platform: 'facebook_page',
      providerPostId: firstPosts.facebook_page!.providerPostId,
      postTargetId: firstPosts.facebook_page!.postTargetId,
    });
    assert.equal(sync.status, 200, JSON.stringify(sync.body));
    assert.equal(sync.body.created, 1);
    // the earlier X post is still known to the simulator (a reply can be added to it)
    const reply = await fetchFresh(`${service.base}/sandbox/_control/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'x', providerPostId: firstPosts.x!.providerPostId, body: 'Replying later' }),
    });
    assert.equal(reply.status, 201, await reply.text());
    assert.equal(await service.stop(), 0, service.output());
  });
});
