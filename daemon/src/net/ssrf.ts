import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export class UnsafeUrlError extends Error {}

/** True for addresses a server-side fetch must never reach: loopback, private, link-local, CGNAT, multicast, reserved… */
export function isPrivateAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return true;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible form (::a.b.c.d, so
    // [::127.0.0.1]) carry an IPv4 address: judge that. ipaddr.js calls the latter "unicast".
    // (:: and ::1 land in 0.0.0.0/8, private too; NAT64, 6to4, Teredo… are not unicast, so private.)
    const compatible = v6.parts.slice(0, 6).every((p) => p === 0);
    if (v6.isIPv4MappedAddress() || compatible) addr = ipaddr.fromByteArray(v6.toByteArray().slice(12));
  }
  return addr.range() !== 'unicast';
}

/** Static checks on a user-supplied URL: scheme, credentials, length, literal private hosts. */
export function validatePublicUrl(raw: string, opts: { allowPrivate: boolean; maxLength?: number }): URL {
  if (raw.length > (opts.maxLength ?? 2048)) throw new UnsafeUrlError(`URL must be at most ${opts.maxLength ?? 2048} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('Not a valid absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsafeUrlError('Only http and https URLs are allowed.');
  if (url.username || url.password) throw new UnsafeUrlError('URLs must not contain credentials.');
  // `localhost.` is `localhost`: a fully qualified name's trailing dot never makes a host public.
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (!opts.allowPrivate) {
    if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) {
      throw new UnsafeUrlError('Private, loopback and link-local targets are not allowed.');
    }
    if (ipaddr.isValid(host) && isPrivateAddress(host))
      throw new UnsafeUrlError('Private, loopback and link-local targets are not allowed.');
  }
  return url;
}

/** The resolver safeLookup asks: dns.lookup with `all: true`, or a stand-in in tests. */
export type DnsResolve = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A dns.lookup replacement for sockets (net.connect's `lookup`, as the undici Agent passes it) that
 * resolves once and refuses the answer when any of its addresses is private. The socket connects
 * to the addresses validated here, so a DNS rebinding between check and connect is impossible.
 */
export function safeLookup(allowPrivate: boolean, resolve: DnsResolve = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses;
      const bad = list.find((a) => isPrivateAddress(a.address));
      if (!allowPrivate && bad) {
        return callback(
          Object.assign(new UnsafeUrlError(`${hostname} resolves to a private address (${bad.address}).`), { code: 'EUNSAFEADDR' }),
          '',
          0,
        );
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
