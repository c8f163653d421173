/**
 * Which network addresses an outbound fetch may reach.
 *
 * Only globally routable unicast addresses pass. ipaddr.js classifies every special range (loopback,
 * private, link-local, CGNAT 100.64/10, multicast, unspecified, broadcast, reserved, documentation,
 * unique-local fc00::/7, NAT64, 6to4, Teredo ...) under a name other than `unicast`, so refusing
 * everything that is not `unicast` also refuses ranges we did not think to list. IPv4-mapped IPv6
 * addresses are judged as the IPv4 address they carry. Cloud metadata endpoints are listed explicitly
 * as well so the refusal reason says what they are.
 *
 * IPv6 is an allow-list: only global unicast 2000::/3, minus its special-purpose ranges (IANA IPv6
 * Special-Purpose Address Registry). Everything else, in particular ::/8 (IPv4-compatible addresses
 * such as ::7f00:1 = 127.0.0.1, which some stacks still route to the embedded IPv4 address), NAT64,
 * 6to4, Teredo and every other form that embeds an IPv4 address, is refused.
 */
import ipaddr from 'ipaddr.js';

export type AddressRefusal =
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'carrier_grade_nat'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'reserved'
  | 'metadata'
  | 'not_global_unicast';

/** Instance metadata services reachable from inside cloud networks (AWS, GCP, Azure, Alibaba, Oracle). */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254']);

const RANGE_REASONS: Record<string, AddressRefusal> = {
  loopback: 'loopback',
  private: 'private',
  uniqueLocal: 'private',
  linkLocal: 'link_local',
  deprecatedSiteLocal: 'private',
  carrierGradeNat: 'carrier_grade_nat',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  reserved: 'reserved',
};

/** Parses an IP literal (dotted, bracketed or not) into its canonical form; IPv4-mapped becomes IPv4. */
export function canonicalAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  // Strict parsing only: legacy shorthand like "0x7f.1" is normalised by the URL parser before it gets here.
  if (!ipaddr.IPv4.isValidFourPartDecimal(bare) && !ipaddr.IPv6.isValid(bare)) return null;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed;
}

/** A parsed allow-list of CIDR ranges (tests only; see docs/media.md). */
export type AllowList = ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

export function parseAllowList(entries: readonly string[]): AllowList {
  return entries.map((entry) => {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    const address = canonicalAddress(entry);
    if (!address) throw new Error(`allow-list entry is not an IP address or CIDR: ${entry}`);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
}

function allowed(address: ipaddr.IPv4 | ipaddr.IPv6, allowList: AllowList): boolean {
  return allowList.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
/** Special-purpose ranges inside 2000::/3 (the embedding forms first). */
const SPECIAL_V6: ReadonlyArray<[ipaddr.IPv6 | ipaddr.IPv4, number]> = [
  '2001::/23', // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID, AMT, AS112 ...
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4 (embeds an IPv4 address)
  '2620:4f:8000::/48', // AS112 direct delegation
  '3fff::/20', // documentation
].map((c) => ipaddr.parseCIDR(c));

function refuseV6(address: ipaddr.IPv6): AddressRefusal | null {
  if (!address.match(GLOBAL_UNICAST_V6)) {
    const range = address.range();
    return RANGE_REASONS[range] ?? 'not_global_unicast';
  }
  if (SPECIAL_V6.some((cidr) => address.match(cidr))) return 'reserved';
  return address.range() === 'unicast' ? null : 'not_global_unicast';
}

/** null when the address may be contacted, otherwise why not. */
export function refuseAddress(text: string, allowList: AllowList = []): AddressRefusal | null {
  const address = canonicalAddress(text);
  if (!address) return 'not_global_unicast';
  if (allowed(address, allowList)) return null;
  const normal = address.toNormalizedString();
  if (METADATA_ADDRESSES.has(normal) || METADATA_ADDRESSES.has(address.toString())) return 'metadata';
  if (address.kind() === 'ipv6') return refuseV6(address as ipaddr.IPv6);
  const range = address.range();
  if (range === 'unicast') return null;
  return RANGE_REASONS[range] ?? 'not_global_unicast';
}
