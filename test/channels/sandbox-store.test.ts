import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { SandboxStore } from '../../src/sandbox/sandbox-store.js';
import { SimulatorLedger } from '../../src/sandbox/simulator-kit.js';
import { GoogleSimulatorState } from '../../src/sandbox/simulators/google.simulator.js';
import { MetaSimState } from '../../src/sandbox/simulators/meta.simulator.js';
import { PinterestSimulatorState } from '../../src/sandbox/simulators/pinterest.simulator.js';
import { TiktokSimulatorState } from '../../src/sandbox/simulators/tiktok.simulator.js';
import { XSimulatorState } from '../../src/sandbox/simulators/x.simulator.js';

const worlds = () => ({
  meta: { state: new MetaSimState(50), ledger: new SimulatorLedger() },
  google: { state: new GoogleSimulatorState(), ledger: new SimulatorLedger() },
  pinterest: { state: new PinterestSimulatorState(), ledger: new SimulatorLedger() },
  tiktok: { state: new TiktokSimulatorState(), ledger: new SimulatorLedger() },
  x: { state: new XSimulatorState(), ledger: new SimulatorLedger() },
});

describe('sandbox store', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-api-sandbox-store-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('saves every simulator atomically and restores accounts, tokens, posts and comments', () => {
    const a = worlds();
    const x = a.x.state;
    const user = x.user('kept_account');
    const { accessToken, refreshToken } = x.issueTokens(user.id, ['tweet.write', 'offline.access']);
    const tweet = x.createTweet(user.id, 'kept post');
    x.seedReply(tweet.id, { username: 'fan', text: 'kept reply' });
    a.x.ledger.posts.push({ platform: 'x', accountId: user.id, postId: tweet.id, text: 'kept post', mediaCount: 0, at: 1 });
    const yt = a.google.state.issueTokens();
    const pin = a.pinterest.state.issueTokens();
    const tt = a.tiktok.state.issueTokens(a.tiktok.state.user('kept.creator').openId, ['video.publish']);
    const page = a.meta.state.issueToken({
      family: 'facebook',
      kind: 'page',
      subjectId: a.meta.state.seed.pageId,
      userId: a.meta.state.seed.fbUserId,
      scopes: ['pages_manage_posts'],
      longLived: true,
      ttlSeconds: null,
    });
    const store = new SandboxStore(dir, a);
    store.flush();
    assert.deepEqual(
      fs.readdirSync(dir).sort(),
      ['google.json', 'meta.json', 'pinterest.json', 'tiktok.json', 'x.json'],
      'no temporary file left',
    );
    assert.equal(fs.statSync(path.join(dir, 'x.json')).mode & 0o777, 0o600);

    const b = worlds();
    assert.deepEqual(new SandboxStore(dir, b).load().sort(), ['google', 'meta', 'pinterest', 'tiktok', 'x']);
    assert.equal(b.x.state.tokens.get(accessToken)?.userId, user.id);
    assert.equal(b.x.state.refreshTokens.get(refreshToken!)?.userId, user.id);
    assert.equal(b.x.state.user('kept_account').id, user.id, 'the same account, not a new one');
    assert.equal(b.x.state.tweets.get(tweet.id)?.metrics.reply_count, 1);
    assert.deepEqual(
      [...b.x.state.tweets.values()].map((t) => t.text),
      ['kept post', 'kept reply'],
    );
    assert.equal(b.x.ledger.posts[0]?.postId, tweet.id);
    assert.ok(BigInt(b.x.state.createTweet(user.id, 'new').id) > BigInt(tweet.id), 'new ids continue above the restored ones');
    assert.ok(b.google.state.validAccessToken(yt.accessToken));
    assert.equal(b.google.state.defaultChannel.id, a.google.state.defaultChannel.id);
    assert.ok(b.pinterest.state.validAccessToken(pin.accessToken));
    assert.deepEqual(
      b.pinterest.state.boards.map((x) => x.id),
      a.pinterest.state.boards.map((x) => x.id),
    );
    assert.equal(b.tiktok.state.tokens.get(tt.accessToken)?.openId, a.tiktok.state.user('kept.creator').openId);
    assert.equal(b.meta.state.tokens.get(page.token)?.subjectId, a.meta.state.seed.pageId);
  });

  it('sets an unreadable file aside and starts that simulator fresh', () => {
    fs.writeFileSync(path.join(dir, 'x.json'), '{"format":1,"state":');
    const warnings: string[] = [];
    const c = worlds();
    const restored = new SandboxStore(dir, c, (m) => warnings.push(m)).load();
    assert.ok(!restored.includes('x') && restored.includes('meta'));
    assert.equal(c.x.state.tweets.size, 0);
    assert.match(warnings[0] ?? '', /could not restore the x simulator/);
    assert.ok(fs.readdirSync(dir).some((f) => f.startsWith('x.json.unreadable-')));
  });

  it('saves shortly after a change, once for many changes', async () => {
    const d = worlds();
    const sub = path.join(dir, 'debounced');
    const store = new SandboxStore(sub, d, () => {}, 20);
    d.x.state.user('later');
    store.touch('x');
    store.touch('x');
    assert.equal(fs.existsSync(path.join(sub, 'x.json')), false, 'not at once');
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(fs.readdirSync(sub), ['x.json'], 'only the family that changed');
    assert.match(fs.readFileSync(path.join(sub, 'x.json'), 'utf8'), /"later"/);
  });
});
