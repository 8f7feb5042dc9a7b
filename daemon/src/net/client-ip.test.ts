import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTrustProxy, resolveClientIp } from './client-ip.js';

test('parseTrustProxy normalizes addresses and CIDRs, and unset or empty trusts none', () => {
  assert.deepEqual(parseTrustProxy(undefined), []);
  assert.deepEqual(parseTrustProxy(' '), []);
  assert.deepEqual(parseTrustProxy('10.0.0.5, 192.168.0.0/16,::1, fd00::/8, [::ffff:10.1.1.1]'), [
    '10.0.0.5/32',
    '192.168.0.0/16',
    '::1/128',
    'fd00::/8',
    '10.1.1.1/32',
  ]);
});

test('parseTrustProxy refuses names, ambiguous IPv4 spellings and bad prefixes', () => {
  for (const bad of [
    'proxy.example',
    'localhost',
    '127.1',
    '0x7f.0.0.1',
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/',
    '10.0.0.0/8/8',
    '10.0.0.0/-1',
    '*',
  ]) {
    assert.throws(() => parseTrustProxy(bad), /not an IP address or CIDR/, bad);
  }
});

test('without trusted proxies the peer is the client, whatever X-Forwarded-For says', () => {
  for (const peer of ['127.0.0.1', '10.0.0.2', '192.168.1.1', '::1', '203.0.113.9']) {
    assert.equal(resolveClientIp(peer, '198.51.100.1', []), peer);
  }
  assert.equal(resolveClientIp('::ffff:127.0.0.1', '198.51.100.1', []), '127.0.0.1', 'IPv4-mapped peers read as IPv4');
  assert.equal(resolveClientIp(undefined, '198.51.100.1', []), 'unknown', 'no socket: the header is still not believed');
  assert.equal(resolveClientIp('', '198.51.100.1', parseTrustProxy('127.0.0.1')), 'unknown');
});

test('a peer outside TRUST_PROXY is the client even when it is private or loopback', () => {
  const trust = parseTrustProxy('10.0.0.0/8');
  assert.equal(resolveClientIp('127.0.0.1', '198.51.100.1', trust), '127.0.0.1');
  assert.equal(resolveClientIp('192.168.0.4', '198.51.100.1', trust), '192.168.0.4');
});

test('behind a trusted proxy the rightmost untrusted hop is the client; client-written hops are ignored', () => {
  const trust = parseTrustProxy('10.0.0.0/8, ::1');
  assert.equal(resolveClientIp('10.0.0.5', '198.51.100.1', trust), '198.51.100.1');
  assert.equal(resolveClientIp('::ffff:10.0.0.5', '198.51.100.1', trust), '198.51.100.1');
  assert.equal(resolveClientIp('10.0.0.5', '6.6.6.6, 1.2.3.4, 198.51.100.1', trust), '198.51.100.1');
  assert.equal(resolveClientIp('10.0.0.5', '198.51.100.1, 10.0.0.9, ::1', trust), '198.51.100.1', 'a chain of proxies');
  assert.equal(resolveClientIp('10.0.0.5', '10.0.0.7, 10.0.0.9', trust), '10.0.0.7', 'all trusted: the farthest one');
  assert.equal(resolveClientIp('10.0.0.5', ' 2001:db8::1 ', trust), '2001:db8::1');
});

test('behind a trusted proxy a missing or malformed hop stops at the last trusted address', () => {
  const trust = parseTrustProxy('10.0.0.0/8');
  assert.equal(resolveClientIp('10.0.0.5', undefined, trust), '10.0.0.5');
  assert.equal(resolveClientIp('10.0.0.5', '', trust), '10.0.0.5');
  assert.equal(resolveClientIp('10.0.0.5', 'unknown', trust), '10.0.0.5');
  assert.equal(resolveClientIp('10.0.0.5', '198.51.100.1, garbage', trust), '10.0.0.5');
  assert.equal(resolveClientIp('10.0.0.5', 'garbage, 10.0.0.8', trust), '10.0.0.8');
  assert.equal(resolveClientIp('10.0.0.5', `${'x'.repeat(5000)}`, trust), '10.0.0.5');
});

test('a header of thousands of hops is walked only a bounded distance', () => {
  const trust = parseTrustProxy('10.0.0.0/8');
  const hops = [...Array(10_000).fill('10.0.0.1'), '10.0.0.2'].join(',');
  assert.equal(resolveClientIp('10.0.0.5', `198.51.100.1,${hops}`, trust), '10.0.0.1');
});
