import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may go (DESIGN §13, against SSRF): by default an endpoint is `https://` and every
 * address its host resolves to is public, checked when it is saved and again at every connection
 * (so that a name re-pointed at an inner address is refused then). An operator who allows private
 * addresses (local use, tests, the demo) may use `http://`, loopback and private networks.
 */

/** Global unicast: not loopback, private, link-local, carrier-grade NAT, multicast, reserved, … */
export function isPublicAddress(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === 'unicast';
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
