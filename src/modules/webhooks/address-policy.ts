import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may go (docs/webhooks.md, against SSRF): by default an endpoint is `https://` and every
 * address its host resolves to is public, checked when it is saved and again at every connection
 * (so that a name re-pointed at an inner address is refused then). An operator who allows private
 * addresses (local use, tests, the demo) may use `http://`, loopback and private networks.
 */

/**
 * IPv6 forms that carry an IPv4 address, which a packet to them reaches or travels through: each is
 * judged by the IPv4 address it carries (`::127.0.0.1` is as much loopback as `127.0.0.1`).
 */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
const IPV4_MAPPED = ipaddr.IPv6.parseCIDR('::ffff:0:0/96');
/** NAT64's well-known prefix (RFC 6052): the IPv4 address is the last 32 bits. */
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
/**
 * NAT64's local-use prefix (RFC 8215): where in the address the IPv4 address sits is the local
 * network's choice, so no address in it can be judged, and none is public.
 */
const LOCAL_NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');
/** 6to4 (RFC 3056): the relay's IPv4 address in bits 16 to 48. */
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16');
/** Teredo (RFC 4380): the server's IPv4 address in bits 32 to 64, the client's inverted in the last 32. */
const TEREDO = ipaddr.IPv6.parseCIDR('2001::/32');

/** The IPv4 address in 4 bytes of an IPv6 address, from `offset`, each byte XORed with `mask`. */
const ipv4At = (bytes: number[], offset: number, mask = 0) => new ipaddr.IPv4(bytes.slice(offset, offset + 4).map((byte) => byte ^ mask));

/** The IPv4 addresses an IPv6 address carries, or undefined when it is not one of those forms. */
function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const bytes = address.toByteArray();
  if (address.match(IPV4_COMPATIBLE) || address.match(IPV4_MAPPED) || address.match(NAT64)) return [ipv4At(bytes, 12)];
  if (address.match(SIX_TO_FOUR)) return [ipv4At(bytes, 2)];
  if (address.match(TEREDO)) return [ipv4At(bytes, 4), ipv4At(bytes, 12, 0xff)];
  return undefined;
}

/**
 * Global unicast: not loopback, private, link-local, carrier-grade NAT, multicast, reserved, …; an
 * IPv6 address that carries IPv4 addresses is public when every one of them is.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed instanceof ipaddr.IPv4) return parsed.range() === 'unicast';
  if (parsed.match(LOCAL_NAT64)) return false;
  const carried = carriedIPv4(parsed);
  return carried ? carried.every((ipv4) => ipv4.range() === 'unicast') : parsed.range() === 'unicast';
}

/** Why `text` cannot be an endpoint's URL; undefined when it can. */
export function urlProblem(text: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'Url must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return allowPrivate ? 'Url must be http:// or https://' : 'Url must be https://';
  }
  if (url.username !== '' || url.password !== '') return 'Url must not carry a user name or password';
  // An address written in the URL is never looked up: it is checked here.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!allowPrivate && ipaddr.isValid(host) && !isPublicAddress(host)) return `Url must reach a public address, not ${host}`;
  return undefined;
}

/** A refused connection: what the delivery log says. */
export class RefusedAddress extends Error {
  override name = 'RefusedAddress';
}

/** The lookup a webhook connection makes: the system's, refusing any answer with an address that is not public. */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find((found) => !isPublicAddress(found.address));
    if (refused) return callback(new RefusedAddress(`${hostname} resolves to ${refused.address}, which is not a public address`), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};
