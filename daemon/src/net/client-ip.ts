import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Only unambiguous spellings: dotted-quad IPv4 or IPv6 (no `127.1`, `0x7f.1`, host names). */
function parseStrict(s: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const v = s.trim().replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.IPv4.isValidFourPartDecimal(v) && !ipaddr.IPv6.isValid(v)) return null;
  // IPv4-mapped IPv6 (::ffff:a.b.c.d, how a dual-stack socket reports IPv4 peers) is its IPv4 address.
  return ipaddr.process(v);
}

/**
 * Parses TRUST_PROXY ("10.0.0.5, 192.168.0.0/16, ::1"): addresses or CIDRs of the reverse proxies
 * whose X-Forwarded-For is believed. Returns normalized CIDRs; throws on anything else, so a typo
 * fails the start instead of silently trusting nothing (or everything).
 */
export function parseTrustProxy(raw: string | undefined): string[] {
  const out: string[] = [];
  for (const entry of (raw ?? '').split(',').map((s) => s.trim())) {
    if (!entry) continue;
    const [addrPart, prefixPart, extra] = entry.split('/');
    const addr = parseStrict(addrPart ?? '');
    const max = addr?.kind() === 'ipv4' ? 32 : 128;
    const prefix = prefixPart === undefined ? max : /^\d{1,3}$/.test(prefixPart) ? Number(prefixPart) : Number.NaN;
    if (!addr || extra !== undefined || !(prefix >= 0 && prefix <= max)) {
      throw new Error(`"${entry}" is not an IP address or CIDR (e.g. 10.0.0.5, 10.0.0.0/8, ::1, fd00::/8)`);
    }
    out.push(`${addr.toString()}/${prefix}`);
  }
  return out;
}

const compiled = new Map<string, Range[]>();
function ranges(trust: readonly string[]): Range[] {
  const key = trust.join(',');
  let r = compiled.get(key);
  if (!r) {
    r = trust.map((cidr) => ipaddr.parseCIDR(cidr) as Range);
    compiled.set(key, r);
  }
  return r;
}

function isTrusted(addr: ipaddr.IPv4 | ipaddr.IPv6, trust: Range[]): boolean {
  return trust.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net as never, bits));
}

/**
 * The client's address from the TCP peer and X-Forwarded-For. The header is believed only when the
 * peer is a proxy named in TRUST_PROXY, and then read from the right: each hop was appended by the
 * proxy before it, so the first address (from the right) that is not a trusted proxy is the client.
 * Everything left of it was written by the client itself and is ignored. A malformed hop stops the
 * walk at the last trusted address. Without TRUST_PROXY the peer address is the answer, whatever
 * headers say: a client can never choose its own address (to dodge the sign-in throttle, say).
 */
export function resolveClientIp(peer: string | undefined, forwardedFor: string | undefined, trustProxy: readonly string[]): string {
  const peerAddr = peer ? parseStrict(peer) : null;
  if (!peerAddr) return peer || 'unknown';
  const trust = ranges(trustProxy);
  let current = peerAddr;
  if (!trust.length || !isTrusted(current, trust) || !forwardedFor) return current.toString();
  const hops = forwardedFor.split(',');
  // A bounded walk: a header with thousands of hops costs no more than a few dozen.
  for (let i = hops.length - 1; i >= Math.max(0, hops.length - 32); i--) {
    const hop = parseStrict(hops[i] ?? '');
    if (!hop) break;
    current = hop;
    if (!isTrusted(hop, trust)) break;
  }
  return current.toString();
}

/** The peer address of this request's connection; empty when not served by @hono/node-server. */
function peerAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? '';
  } catch {
    // e.g. app.request() in a benchmark: there is no socket.
    return '';
  }
}

/**
 * The client address of a request, for everything that keys on it (sign-in throttle, sessions,
 * any per-address limit or log). One function, so every consumer agrees on who the client is.
 */
export function clientIp(c: Context, trustProxy: readonly string[]): string {
  return resolveClientIp(peerAddress(c), c.req.header('x-forwarded-for'), trustProxy);
}
