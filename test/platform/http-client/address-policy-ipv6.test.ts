/**
 * IPv6 outbound policy: only global unicast 2000::/3 minus its special ranges. Every form that embeds
 * an IPv4 address (IPv4-compatible ::/96, mapped, translated, NAT64, 6to4, Teredo) and every range
 * outside 2000::/3 is refused, as a literal in the URL and as a DNS answer; nothing is contacted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { refuseAddress } from '../../../src/platform/http-client/address-policy.js';
import { GuardedFetchError, GuardedHttpClient } from '../../../src/platform/http-client/guarded-client.js';

const REFUSED: string[] = [
  '::', // unspecified
  '::1', // loopback
  '::7f00:1', // IPv4-compatible 127.0.0.1 (what http://[::127.0.0.1]/ becomes)
  '::127.0.0.1',
  '::a9fe:a9fe', // IPv4-compatible 169.254.169.254 (metadata)
  '::169.254.169.254',
  '::ffff:127.0.0.1', // IPv4-mapped
  '::ffff:a9fe:a9fe',
  '::ffff:0:7f00:1', // IPv4-translated (RFC 6145)
  '64:ff9b::7f00:1', // NAT64 well-known prefix
  '64:ff9b:1::a9fe:a9fe', // local-use NAT64 (RFC 8215)
  '2002:7f00:1::', // 6to4 of 127.0.0.1
  '2002:a9fe:a9fe::1', // 6to4 of the metadata address
  '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo (embeds an obfuscated IPv4)
  '2001:2::1', // benchmarking
  '2001:10::1', // ORCHID
  '2001:20::1', // ORCHIDv2
  '2001:db8::1', // documentation
  '3fff::1', // documentation (RFC 9637)
  '100::1', // discard-only
  '5f00::1', // segment routing
  'fc00::1', // unique local
  'fd00:ec2::254', // AWS metadata over IPv6
  'fe80::1', // link local
  'fec0::1', // deprecated site local
  'ff02::1', // multicast
  '0:0:0:0:0:0:0:1',
  '4000::1', // outside 2000::/3
  '1::1',
];

const ALLOWED = ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888', '2400:cb00::1'];

describe('IPv6 address policy', () => {
  for (const address of REFUSED) {
    it(`refuses ${address}`, () => {
      assert.notEqual(refuseAddress(address), null);
    });
  }
  for (const address of ALLOWED) {
    it(`allows global unicast ${address}`, () => {
      assert.equal(refuseAddress(address), null);
    });
  }

  it('refuses every form as a URL literal and as a DNS answer before connecting', async () => {
    for (const address of REFUSED) {
      const literal = new GuardedHttpClient({ resolve: async () => [{ address: '93.184.215.14', family: 4 }] });
      const byLiteral = await literal.check(`http://[${address}]/`).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(byLiteral instanceof GuardedFetchError, `literal ${address}`);
      assert.equal(byLiteral.code, 'address_refused', `literal ${address}`);

      const dns = new GuardedHttpClient({ resolve: async () => [{ address, family: 6 }] });
      const byName = await dns.check('http://rebinding.example/').then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(byName instanceof GuardedFetchError, `dns ${address}`);
      assert.equal(byName.code, 'address_refused', `dns ${address}`);
    }
  });

  it('http://[::127.0.0.1]/ is refused (the URL parser turns it into [::7f00:1])', async () => {
    const client = new GuardedHttpClient({});
    const err = await client.check('http://[::127.0.0.1]/').catch((e: unknown) => e);
    assert.ok(err instanceof GuardedFetchError);
    assert.equal(err.code, 'address_refused');
  });
});
