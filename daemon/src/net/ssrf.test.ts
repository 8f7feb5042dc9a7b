import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { test } from 'node:test';
import { isPrivateAddress, safeLookup, UnsafeUrlError, validatePublicUrl } from './ssrf.js';

test('private, loopback, link-local, CGNAT and special addresses are private', () => {
  for (const ip of [
    '10.0.0.1',
    '10.255.255.255', // 10/8
    '172.16.0.1',
    '172.31.255.254', // 172.16/12
    '192.168.0.1',
    '192.168.255.255', // 192.168/16
    '127.0.0.1',
    '127.255.255.254', // 127/8
    '169.254.169.254',
    '169.254.0.1', // 169.254/16 (cloud metadata)
    '100.64.0.1',
    '100.127.255.254', // 100.64/10 (CGNAT)
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1', // unspecified, broadcast, multicast
    '::1',
    '::', // loopback, unspecified
    'fc00::1',
    'fd12:3456::1', // fc00::/7 unique local
    'fe80::1',
    'febf::1', // fe80::/10 link-local
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254', // IPv4-mapped
    'ff02::1', // multicast
  ]) {
    assert.equal(isPrivateAddress(ip), true, ip);
  }
});

test('ordinary public addresses are public', () => {
  for (const ip of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    assert.equal(isPrivateAddress(ip), false, ip);
  }
});

test('anything that is not an IP address fails closed', () => {
  for (const s of ['', 'localhost', 'example.com', '999.1.1.1', '1.2.3.4.5']) assert.equal(isPrivateAddress(s), true, s);
  // Shorthand IPv4 forms are read the way inet_aton reads them.
  assert.equal(isPrivateAddress('0x7f.1'), true);
  assert.equal(isPrivateAddress('127.1'), true);
});

test('validatePublicUrl accepts public http(s) URLs and returns the parsed URL', () => {
  const u = validatePublicUrl('https://example.com/a/b?c=d#e', { allowPrivate: false });
  assert.equal(u.hostname, 'example.com');
  assert.equal(validatePublicUrl('http://8.8.8.8:8080/', { allowPrivate: false }).port, '8080');
  assert.ok(validatePublicUrl(`https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`, { allowPrivate: false }));
});

test('validatePublicUrl refuses private literals in every spelling', () => {
  for (const url of [
    'http://127.0.0.1/',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f.0.0.1/',
    'http://0177.0.0.1/', // loopback spellings
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[::]/',
    'http://[fc00::1]/',
    'http://[fe80::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://localhost/',
    'http://LOCALHOST:8080/',
    'http://api.localhost/',
    'http://printer.local/',
    'http://metadata.google.internal/',
    'http://localhost./',
    'http://LOCALHOST..:8080/',
    'http://api.localhost./',
    'http://printer.local./',
    'http://metadata.google.internal./',
    'http://127.0.0.1./',
  ]) {
    assert.throws(() => validatePublicUrl(url, { allowPrivate: false }), UnsafeUrlError, url);
  }
});

test('validatePublicUrl refuses credentials, non-http schemes, bad syntax and over-long URLs, even when private targets are allowed', () => {
  for (const allowPrivate of [false, true]) {
    for (const url of [
      'https://user:pass@example.com/',
      'https://user@example.com/',
      'http://:pw@example.com/',
      'file:///etc/passwd',
      'ftp://example.com/',
      'gopher://example.com/',
      'data:text/plain,hi',
      'javascript:alert(1)',
      'ws://example.com/',
      'not a url',
      '/relative/path',
      '',
      `https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`,
    ]) {
      assert.throws(() => validatePublicUrl(url, { allowPrivate }), UnsafeUrlError, `${url.slice(0, 60)} allowPrivate=${allowPrivate}`);
    }
  }
  assert.throws(() => validatePublicUrl('https://example.com/abc', { allowPrivate: false, maxLength: 10 }), /at most 10/);
});

test('ALLOW_PRIVATE_URLS lets private literals through', () => {
  for (const url of ['http://127.0.0.1:8080/', 'http://localhost/', 'http://[::1]/', 'http://10.0.0.1/']) {
    assert.ok(validatePublicUrl(url, { allowPrivate: true }), url);
  }
});

function resolve(lookup: ReturnType<typeof safeLookup>, host: string, options: object = {}) {
  return new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>((res) => {
    (
      lookup as unknown as (
        h: string,
        o: object,
        cb: (e: NodeJS.ErrnoException | null, a: string | LookupAddress[], f?: number) => void,
      ) => void
    )(host, options, (err, address, family) => res({ err, address, family }));
  });
}

test('safeLookup refuses a name that resolves to loopback (checked at connect time)', async () => {
  const r = await resolve(safeLookup(false), 'localhost');
  assert.ok(r.err instanceof UnsafeUrlError);
  assert.equal((r.err as NodeJS.ErrnoException).code, 'EUNSAFEADDR');
  assert.match(r.err?.message ?? '', /private address/);
  const all = await resolve(safeLookup(false), 'localhost', { all: true });
  assert.equal(all.err?.code, 'EUNSAFEADDR');
});

test('safeLookup with private targets allowed resolves normally, single and all', async () => {
  const one = await resolve(safeLookup(true), 'localhost', { family: 4 });
  assert.equal(one.err, null);
  assert.equal(one.address, '127.0.0.1');
  assert.equal(one.family, 4);
  const all = await resolve(safeLookup(true), 'localhost', { all: true, family: 4 });
  assert.equal(all.err, null);
  assert.ok(Array.isArray(all.address) && all.address.some((a) => a.address === '127.0.0.1'));
});

test('safeLookup passes resolution errors through', async () => {
  const r = await resolve(safeLookup(false), 'no-such-host.invalid');
  assert.ok(r.err);
  assert.notEqual(r.err.code, 'EUNSAFEADDR');
});

test('IPv6 forms that embed a private IPv4 address are private (IPv4-compatible, mapped, translated, NAT64, 6to4)', () => {
  for (const ip of [
    '::127.0.0.1', // IPv4-compatible (deprecated ::/96): [::127.0.0.1] in a URL
    '::7f00:1',
    '0:0:0:0:0:0:7f00:1',
    '::10.0.0.1',
    '::169.254.169.254',
    '::ffff:7f00:1', // IPv4-mapped in hex
    '0:0:0:0:0:ffff:127.0.0.1',
    '::ffff:0:127.0.0.1', // IPv4-translated (RFC 6145)
    '64:ff9b::127.0.0.1', // NAT64 (RFC 6052)
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::', // 6to4 of 127.0.0.1
    '2002:a00:1::1', // 6to4 of 10.0.0.1
  ]) {
    assert.equal(isPrivateAddress(ip), true, ip);
  }
  for (const url of [
    'http://[::127.0.0.1]/',
    'http://[::7f00:1]:8080/',
    'http://[0:0:0:0:0:0:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:7f00:1]/',
    'http://[::ffff:0:7f00:1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[::a9fe:a9fe]/latest/meta-data/',
  ]) {
    assert.throws(() => validatePublicUrl(url, { allowPrivate: false }), UnsafeUrlError, url);
  }
});
