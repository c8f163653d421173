import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { GuardedFetchError, GuardedHttpClient } from '../../src/platform/http-client/guarded-client.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function listen(handler: Handler): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function refusal(promise: Promise<unknown>): Promise<GuardedFetchError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof GuardedFetchError, `expected GuardedFetchError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the fetch to be refused');
}

async function readAll(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(chunk);
  return Buffer.concat(parts);
}

describe('guarded client address policy (nothing is contacted)', () => {
  const client = new GuardedHttpClient({
    resolve: async () => [{ address: '93.184.215.14', family: 4 }],
  });
  const cases: Array<[string, string]> = [
    ['http://127.0.0.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://017700000001/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
    ['http://[::ffff:10.1.2.3]/', 'private'],
    ['http://0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://10.0.0.1/', 'private'],
    ['http://172.16.5.4/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://[fc00::1]/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://100.100.100.200/', 'metadata'],
    ['http://169.254.1.1/', 'link_local'],
    ['http://[fe80::1]/', 'link_local'],
    ['http://100.64.0.1/', 'carrier_grade_nat'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://240.0.0.1/', 'reserved'],
    ['http://192.0.2.10/', 'reserved'],
    ['http://[64:ff9b::7f00:1]/', 'not_global_unicast'],
  ];
  for (const [url, reason] of cases) {
    test(`${url} is refused as ${reason}`, async () => {
      const error = await refusal(client.get(url));
      assert.equal(error.code, 'address_refused');
      assert.equal(error.detail.refusal, reason);
    });
  }

  test('only http and https schemes are accepted', async () => {
    for (const url of ['ftp://example.com/a', 'file:///etc/passwd', 'gopher://example.com/', 'data:text/plain,hi']) {
      assert.equal((await refusal(client.check(url))).code, 'scheme_not_allowed', url);
    }
    assert.equal((await refusal(client.check('not a url'))).code, 'url_invalid');
    assert.equal((await refusal(client.check('http://user:pw@example.com/'))).code, 'url_invalid');
  });

  test('a name is judged by every address it resolves to', async () => {
    const mixed = new GuardedHttpClient({
      resolve: async () => [
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.8', family: 4 },
      ],
    });
    const error = await refusal(mixed.check('https://cdn.example.test/a.png'));
    assert.equal(error.detail.refusal, 'private');
    assert.equal(error.detail.address, '10.0.0.8');
    const ok = await client.check('https://cdn.example.test/a.png');
    assert.equal(ok.address, '93.184.215.14');
  });

  test('a name that does not resolve is a dns failure', async () => {
    const failing = new GuardedHttpClient({
      resolve: async () => {
        throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
      },
    });
    assert.equal((await refusal(failing.check('https://missing.example.test/'))).code, 'dns_failed');
  });

  test('a name is resolved once for the checks of 30 s (one lookup shared by concurrent checks); its addresses are checked on every use', async () => {
    let t = 1_000_000;
    const answers: Array<Array<{ address: string; family: number }>> = [
      [{ address: '93.184.215.14', family: 4 }],
      [{ address: '169.254.169.254', family: 4 }],
    ];
    let lookups = 0;
    const cached = new GuardedHttpClient({
      now: () => t,
      resolve: async () => {
        await new Promise((r) => setTimeout(r, 5));
        return answers[Math.min(lookups++, answers.length - 1)]!;
      },
    });
    const first = await Promise.all(Array.from({ length: 20 }, () => cached.check('https://hooks.example.test/a')));
    assert.equal(lookups, 1, 'concurrent checks share one lookup');
    assert.ok(first.every((c) => c.address === '93.184.215.14'));
    t += 29_000;
    assert.equal((await cached.check('https://hooks.example.test/b')).address, '93.184.215.14');
    assert.equal(lookups, 1);
    // past its lifetime the name is resolved again, and the new answer is judged
    t += 2_000;
    assert.equal((await refusal(cached.check('https://hooks.example.test/a'))).detail.refusal, 'metadata');
    assert.equal(lookups, 2);
    // each name has its own entry
    await refusal(cached.check('https://other.example.test/'));
    assert.equal(lookups, 3);
  });

  test('a failed lookup is not kept: the next check asks again', async () => {
    let lookups = 0;
    const flaky = new GuardedHttpClient({
      resolve: async () => {
        lookups++;
        if (lookups === 1) throw Object.assign(new Error('temporary'), { code: 'EAI_AGAIN' });
        return [{ address: '93.184.215.14', family: 4 }];
      },
    });
    assert.equal((await refusal(flaky.check('https://hooks.example.test/'))).code, 'dns_failed');
    assert.equal((await flaky.check('https://hooks.example.test/')).address, '93.184.215.14');
    assert.equal(lookups, 2);
  });

  test('the allow-list cannot be set in production', () => {
    assert.throws(
      () =>
        new GuardedHttpClient({
          allowAddresses: ['127.0.0.1'],
          environment: 'production',
        }),
      /tests/,
    );
    assert.doesNotThrow(() => new GuardedHttpClient({ environment: 'production' }));
  });
});

describe('guarded client against loopback servers (allow-listed)', () => {
  let port = 0;
  let server: Server;
  const seen: Array<{ url: string; host: string }> = [];
  let bigStreamClosedEarly: Promise<boolean> = Promise.resolve(false);

  before(async () => {
    ({ server, port } = await listen((req, res) => {
      seen.push({ url: req.url ?? '', host: req.headers.host ?? '' });
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/ok') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
      } else if (url.pathname.startsWith('/hop/')) {
        const left = Number(url.pathname.slice(5));
        res.writeHead(302, { location: left > 0 ? `/hop/${left - 1}` : '/ok' }).end();
      } else if (url.pathname === '/to') {
        res.writeHead(307, { location: url.searchParams.get('target') ?? '/' }).end();
      } else if (url.pathname === '/declared-large') {
        res.writeHead(200, { 'content-length': '5000' }).end(Buffer.alloc(5000));
      } else if (url.pathname === '/endless') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        bigStreamClosedEarly = new Promise((resolve) => {
          let sent = 0;
          const pump = () => {
            while (sent < 64 * 1024 * 1024) {
              sent += 65536;
              if (!res.write(Buffer.alloc(65536))) return void res.once('drain', pump);
            }
            res.end();
            resolve(false);
          };
          res.on('close', () => resolve(sent < 64 * 1024 * 1024));
          pump();
        });
      } else if (url.pathname === '/silent') {
        // never answers: the transport deadline must fire
      } else {
        res.writeHead(404).end();
      }
    }));
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const names = new Map([
    ['media.allowed.test', '127.0.0.1'],
    ['evil.test', '10.20.30.40'],
  ]);
  const resolve = async (host: string) => {
    const address = names.get(host);
    if (!address) throw new Error('ENOTFOUND');
    return [{ address, family: 4 as const }];
  };
  const client = () => new GuardedHttpClient({ allowAddresses: ['127.0.0.1/32'], resolve });

  test('connects to the checked address while keeping the Host header', async () => {
    const response = await client().get(`http://media.allowed.test:${port}/ok`);
    assert.equal(response.status, 200);
    assert.equal(response.address, '127.0.0.1');
    assert.equal((await readAll(response.body)).toString(), 'hello');
    assert.equal(seen.at(-1)?.host, `media.allowed.test:${port}`);
  });

  test('loopback is refused without the allow-list even when the server is up', async () => {
    const plain = new GuardedHttpClient({ resolve });
    assert.equal((await refusal(plain.get(`http://127.0.0.1:${port}/ok`))).detail.refusal, 'loopback');
    assert.equal((await refusal(plain.get(`http://media.allowed.test:${port}/ok`))).detail.refusal, 'loopback');
  });

  test('a redirect from an allowed host to a refused one is stopped before connecting', async () => {
    for (const target of [
      'http://169.254.169.254/latest/meta-data/',
      `http://127.0.0.2:${port}/ok`,
      `http://evil.test:${port}/ok`,
      `http://[::ffff:127.0.0.2]:${port}/ok`,
    ]) {
      const before = seen.length;
      const error = await refusal(client().get(`http://media.allowed.test:${port}/to?target=${encodeURIComponent(target)}`));
      assert.equal(error.code, 'address_refused', target);
      assert.equal(seen.length, before + 1, 'only the first hop reached a server');
    }
  });

  test('follows at most five redirects', async () => {
    const five = await client().get(`http://127.0.0.1:${port}/hop/4`);
    assert.equal(five.redirects, 5);
    assert.equal((await readAll(five.body)).toString(), 'hello');
    assert.equal((await refusal(client().get(`http://127.0.0.1:${port}/hop/5`))).code, 'too_many_redirects');
  });

  test('a declared length above the cap is refused before reading', async () => {
    const error = await refusal(
      client().get(`http://127.0.0.1:${port}/declared-large`, {
        maxBytes: 4096,
      }),
    );
    assert.equal(error.code, 'response_too_large');
  });

  test('an undeclared body stops being read past the cap', async () => {
    const response = await client().get(`http://127.0.0.1:${port}/endless`, {
      maxBytes: 100_000,
    });
    const error = await refusal(readAll(response.body));
    assert.equal(error.code, 'response_too_large');
    assert.equal(await bigStreamClosedEarly, true, 'the server saw the connection close before sending everything');
  });

  test('the transport deadline covers a server that never answers', async () => {
    const quick = new GuardedHttpClient({
      allowAddresses: ['127.0.0.1'],
      resolve,
      timeoutMs: 300,
    });
    const started = Date.now();
    const error = await refusal(quick.get(`http://127.0.0.1:${port}/silent`));
    assert.equal(error.code, 'timeout');
    assert.ok(Date.now() - started < 3000);
  });

  test('a closed port is a connect failure', async () => {
    const closed = await listen(() => undefined);
    const closedPort = closed.port;
    await new Promise((r) => closed.server.close(r));
    assert.equal((await refusal(client().get(`http://127.0.0.1:${closedPort}/`))).code, 'connect_failed');
  });
});
