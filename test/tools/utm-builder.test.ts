import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildUtm, parseUtmRequest, type UtmBuildResult } from '../../src/modules/tools/utm/utm-builder.js';

const base = { source: 'news', medium: 'email', campaign: 'spring' };
const tags = 'utm_source=news&utm_medium=email&utm_campaign=spring';

function build(urls: unknown[], params: Record<string, unknown> = base): UtmBuildResult {
  const result = buildUtm({ ...params, urls });
  if (!result.ok) assert.fail(result.message);
  return result.value;
}

function link(url: string, params: Record<string, unknown> = base): string {
  const { links, invalid } = build([url], params);
  assert.deepEqual(invalid, []);
  return (links[0] as { link: string }).link;
}

describe('UTM links', () => {
  test('plain URL', () => {
    assert.equal(link('https://example.com/landing'), `https://example.com/landing?${tags}`);
  });

  test('existing query keeps its text and order; fragment stays after the query', () => {
    assert.equal(link('https://example.com/p?b=2&a=x%20y+z&flag#section-2'), `https://example.com/p?b=2&a=x%20y+z&flag&${tags}#section-2`);
  });

  test('existing utm parameters we set are replaced, others kept', () => {
    assert.equal(
      link('https://example.com/?utm_source=old&x=1&utm_content=keep&utm_medium=old&utm%5Fcampaign=enc'),
      `https://example.com/?x=1&utm_content=keep&${tags}`,
    );
  });

  test('repeated keys are all kept, repeated utm keys all replaced', () => {
    assert.equal(link('https://example.com/?a=1&utm_source=x&a=2&utm_source=y&a=1'), `https://example.com/?a=1&a=2&a=1&${tags}`);
  });

  test('hash-router URL keeps the fragment verbatim', () => {
    assert.equal(link('https://app.example.com/#/orders?id=7&tab=a b'), `https://app.example.com/?${tags}#/orders?id=7&tab=a%20b`);
    assert.equal(link('https://app.example.com/#/x?y=1'), `https://app.example.com/?${tags}#/x?y=1`);
    assert.equal(link('https://app.example.com/app?q=1#!/route/ü'), `https://app.example.com/app?q=1&${tags}#!/route/ü`);
  });

  test('empty query and empty fragment markers', () => {
    assert.equal(link('https://example.com/?'), `https://example.com/?${tags}`);
    assert.equal(link('https://example.com/?#'), `https://example.com/?${tags}#`);
  });

  test('IDN hosts become punycode; IPv6 hosts keep their brackets and port', () => {
    assert.equal(link('https://bücher.example/straße'), `https://xn--bcher-kva.example/stra%C3%9Fe?${tags}`);
    assert.equal(link('http://[2001:db8::1]:8080/a?b=1'), `http://[2001:db8::1]:8080/a?b=1&${tags}`);
    assert.equal(link('http://[::FFFF:127.0.0.1]/'), `http://[::ffff:7f00:1]/?${tags}`);
  });

  test('values with & = # + % and Unicode are percent-encoded, space as %20', () => {
    const result = link('https://example.com/', {
      source: ' a&b=c ',
      medium: '#1 + 50%',
      campaign: 'été 🎉',
      content: 'x/y?z',
      term: 'a\u00a0b',
      id: 'id 1',
      sourcePlatform: 'Platform+',
    });
    assert.equal(
      result,
      'https://example.com/?utm_source=a%26b%3Dc&utm_medium=%231%20%2B%2050%25' +
        '&utm_campaign=%C3%A9t%C3%A9%20%F0%9F%8E%89&utm_id=id%201&utm_term=a%C2%A0b&utm_content=x%2Fy%3Fz' +
        '&utm_source_platform=Platform%2B',
    );
    const parsed = new URL(result).searchParams;
    assert.equal(parsed.get('utm_source'), 'a&b=c');
    assert.equal(parsed.get('utm_medium'), '#1 + 50%');
    assert.equal(parsed.get('utm_campaign'), 'été 🎉');
  });

  test('typed query text is kept unless it holds whitespace', () => {
    assert.equal(link('https://example.com/?q=café&r="x y"'), `https://example.com/?q=café&r=%22x%20y%22&${tags}`);
  });

  test('credentials, ports and case of the scheme and host', () => {
    assert.equal(link('HTTPS://User:Pw@Example.COM:8443/P'), `https://User:Pw@example.com:8443/P?${tags}`);
  });
});

describe('invalid URLs', () => {
  test('reason codes, indexes and input echo, in input order', () => {
    const urls: unknown[] = [
      'https://ok.example/',
      'javascript:alert(1)',
      'mailto:someone@example.com',
      '/relative/path',
      'example.com/no-scheme',
      'ftp://example.com/file',
      'http:example.com',
      'https://',
      'http://exa mple.com/',
      'http://[::1/',
      '',
      '   ',
      42,
      null,
      `https://example.com/${'a'.repeat(9000)}`,
      'http://second.example/',
    ];
    const { links, invalid } = build(urls);
    assert.deepEqual(
      links.map((entry) => [entry.index, entry.url]),
      [
        [0, 'https://ok.example/'],
        [15, 'http://second.example/'],
      ],
    );
    assert.deepEqual(
      invalid.map((entry) => [entry.index, entry.reason]),
      [
        [1, 'unsupported_scheme'],
        [2, 'unsupported_scheme'],
        [3, 'relative_url'],
        [4, 'relative_url'],
        [5, 'unsupported_scheme'],
        [6, 'missing_host'],
        [7, 'malformed'],
        [8, 'malformed'],
        [9, 'malformed'],
        [10, 'empty'],
        [11, 'empty'],
        [12, 'not_a_string'],
        [13, 'not_a_string'],
        [14, 'too_long'],
      ],
    );
    for (const entry of invalid) assert.equal(entry.url, urls[entry.index]);
  });
});

describe('request validation', () => {
  const refused: Array<[string, unknown]> = [
    ['array body', [base]],
    ['string body', 'x'],
    ['null body', null],
    ['missing urls', { ...base }],
    ['empty urls', { ...base, urls: [] }],
    ['urls not an array', { ...base, urls: 'https://a.example' }],
    ['missing source', { medium: 'm', campaign: 'c', urls: ['https://a.example'] }],
    ['missing campaign', { source: 's', medium: 'm', urls: ['https://a.example'] }],
    ['blank medium', { ...base, medium: '   ', urls: ['https://a.example'] }],
    ['non-string term', { ...base, term: 5, urls: ['https://a.example'] }],
    ['value over 250 chars', { ...base, content: 'x'.repeat(251), urls: ['https://a.example'] }],
    ['lone surrogate', { ...base, id: 'a\ud800', urls: ['https://a.example'] }],
  ];
  for (const [label, body] of refused) test(label, () => assert.equal(parseUtmRequest(body).ok, false));

  test('250 characters after trimming are accepted, counted in code points', () => {
    const parsed = parseUtmRequest({
      ...base,
      content: ` ${'🎉'.repeat(250)} `,
      urls: ['https://a.example'],
    });
    assert.ok(parsed.ok);
    assert.equal(parsed.value.content, '🎉'.repeat(250));
  });
});
