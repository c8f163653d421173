/**
 * What can be refused of an outbound URL without DNS, at the time it is saved (a webhook endpoint, an
 * RSS feed): anything but http(s), credentials in the URL (`user:pw@`), a literal internal address in
 * any spelling, and names that only ever mean an internal host. The address classification is the
 * guarded client's (address-policy.ts): the WHATWG URL parser has already turned decimal, octal, hex
 * and short IPv4 forms into dotted quads and IPv6 into its bracketed form, and IPv4-mapped IPv6 is
 * judged as the IPv4 address it carries, so every spelling meets the same rule.
 *
 * A public name can still resolve to an internal address later: the guarded client checks every
 * resolved address again at fetch time, and that check stays the authority.
 */
import { type AddressRefusal, type AllowList, canonicalAddress, refuseAddress } from './address-policy.js';

type SavedUrlRefusal = 'url_invalid' | 'scheme_not_allowed' | 'credentials_not_allowed' | 'address_refused' | 'name_refused';

export interface SavedUrlProblem {
  reason: SavedUrlRefusal;
  message: string;
  refusal?: AddressRefusal;
}

/** Suffixes of names reserved for, or by convention only used on, internal networks (RFC 6761, 6762, 8375). */
const INTERNAL_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa', 'intranet', 'lan', 'corp'];

function internalName(name: string): boolean {
  if (!name.includes('.')) return true; // a single label resolves through the search domains: an internal host
  return INTERNAL_SUFFIXES.some((s) => name === s || name.endsWith(`.${s}`));
}

/** null when the URL may be saved; otherwise why not. `allowList` is the guarded client's (tests only). */
export function refuseUrlWithoutDns(raw: string, allowList: AllowList = []): SavedUrlProblem | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { reason: 'url_invalid', message: 'the URL cannot be parsed' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { reason: 'scheme_not_allowed', message: `scheme ${url.protocol} is not allowed; use http or https` };
  if (url.username || url.password)
    return { reason: 'credentials_not_allowed', message: 'URLs with credentials (user:password@) are not allowed' };
  // trailing dots name the same host ("localhost." is localhost)
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  if (host === '') return { reason: 'url_invalid', message: 'the URL has no host' };
  const literal = canonicalAddress(host);
  if (literal) {
    const refusal = refuseAddress(host, allowList);
    return refusal ? { reason: 'address_refused', refusal, message: `${url.hostname} is a ${refusal.replace(/_/g, ' ')} address` } : null;
  }
  if (internalName(host)) return { reason: 'name_refused', message: `${url.hostname} names an internal host` };
  return null;
}
