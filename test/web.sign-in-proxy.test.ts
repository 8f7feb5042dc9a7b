// The sign-in throttle and the client address behind (or without) a reverse proxy: X-Forwarded-For
// is believed only from a peer that TRUST_PROXY names, so a client cannot pick a fresh address per
// guess. Plain HTTP over loopback against real daemons (the browser flow is in web.auth.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../daemon/src/auth/passwords.js';
import { ConfigError, loadConfig } from '../daemon/src/config.js';
import { createTenant, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const PASSWORD = 'correct horse battery staple';

/** One sign-in form post, as a browser would send it: pre-session cookie and its CSRF token. */
async function signInAs(d: TestDaemon, email: string, password: string, headers: Record<string, string> = {}) {
  const form = await fetch(`${d.url}/app/sign-in`);
  const cookie = form.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  assert.ok(token, 'the sign-in form carries a CSRF token');
  const res = await fetch(`${d.url}/app/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
    body: new URLSearchParams({ _csrf: token, email, password, next: '/app/' }).toString(),
  });
  await res.arrayBuffer();
  return res.status;
}

async function userWithPassword(d: TestDaemon, label: string): Promise<Tenant> {
  const t = await createTenant(d, label);
  await d.deps.sql`update users set password_hash = ${await hashPassword(PASSWORD)} where id = ${t.userId}`;
  return t;
}

const sessionIps = async (d: TestDaemon, userId: string) =>
  (await d.deps.sql<{ ip: string }[]>`select ip from sessions where user_id = ${userId} order by created_at`).map((r) => r.ip);

describe('sign-in throttle and client address', () => {
  let direct: TestDaemon; // default: TRUST_PROXY unset, no proxy header is believed
  let proxied: TestDaemon; // TRUST_PROXY names loopback: this test plays the reverse proxy
  let elsewhere: TestDaemon; // TRUST_PROXY names some other proxy, not this peer

  before(async () => {
    [direct, proxied, elsewhere] = await Promise.all([
      startTestDaemon({ label: 'signin_direct' }),
      startTestDaemon({ label: 'signin_proxied', env: { TRUST_PROXY: '127.0.0.1, ::1' } }),
      startTestDaemon({ label: 'signin_elsewhere', env: { TRUST_PROXY: '10.0.0.0/8,fd00::/8' } }),
    ]);
  });
  after(async () => {
    await Promise.all([direct?.close(), proxied?.close(), elsewhere?.close()]);
  });

  for (const which of ['direct', 'elsewhere'] as const) {
    it(`${which}: a forged X-Forwarded-For per guess from a loopback peer does not escape the throttle`, async () => {
      const d = which === 'direct' ? direct : elsewhere;
      const victim = await userWithPassword(d, `forged-${which}`);
      for (let i = 0; i < 5; i++) {
        const status = await signInAs(d, victim.email, `wrong ${i}`, { 'x-forwarded-for': `203.0.113.${i + 1}` });
        assert.equal(status, 401, `guess ${i}`);
      }
      const status = await signInAs(d, victim.email, PASSWORD, { 'x-forwarded-for': '198.51.100.77' });
      assert.equal(status, 429, 'the sixth try from the same peer waits, whatever address it claims');
      const rows = await d.deps.sql<{ ip: string }[]>`select distinct ip from sign_in_failures where email = ${victim.email}`;
      assert.deepEqual(
        rows.map((r) => r.ip),
        ['127.0.0.1'],
        'failures are recorded under the peer address',
      );
    });
  }

  it('direct: the session records the peer address, not the header', async () => {
    const u = await userWithPassword(direct, 'direct-session');
    assert.equal(await signInAs(direct, u.email, PASSWORD, { 'x-forwarded-for': '192.0.2.9' }), 303);
    assert.deepEqual(await sessionIps(direct, u.userId), ['127.0.0.1']);
  });

  it('trusted proxy: clients behind it are told apart by the address the proxy appended', async () => {
    const victim = await userWithPassword(proxied, 'proxied-victim');
    for (let i = 0; i < 5; i++) {
      assert.equal(await signInAs(proxied, victim.email, `wrong ${i}`, { 'x-forwarded-for': '203.0.113.50' }), 401);
    }
    assert.equal(await signInAs(proxied, victim.email, PASSWORD, { 'x-forwarded-for': '203.0.113.50' }), 429);
    // The real owner at another address behind the same proxy is not locked out by the attacker.
    assert.equal(await signInAs(proxied, victim.email, PASSWORD, { 'x-forwarded-for': '198.51.100.20' }), 303);
    assert.deepEqual(await sessionIps(proxied, victim.userId), ['198.51.100.20']);
  });

  it('trusted proxy: entries a client wrote in front of the proxy’s own are ignored', async () => {
    const victim = await userWithPassword(proxied, 'proxied-spoof');
    for (let i = 0; i < 5; i++) {
      // The attacker sends its own X-Forwarded-For; the proxy appends the attacker's real address.
      const forged = `10.9.8.${i}, 192.0.2.${i}`;
      assert.equal(await signInAs(proxied, victim.email, `wrong ${i}`, { 'x-forwarded-for': `${forged}, 203.0.113.66` }), 401);
    }
    const again = await signInAs(proxied, victim.email, PASSWORD, { 'x-forwarded-for': '1.1.1.1, 203.0.113.66' });
    assert.equal(again, 429);
  });

  it('trusted proxy: a chain of trusted proxies is skipped to the first untrusted hop', async () => {
    const u = await userWithPassword(proxied, 'proxied-chain');
    assert.equal(await signInAs(proxied, u.email, PASSWORD, { 'x-forwarded-for': '203.0.113.90, 127.0.0.1, ::1' }), 303);
    assert.deepEqual(await sessionIps(proxied, u.userId), ['203.0.113.90']);
  });

  it('trusted proxy: a malformed header falls back to the proxy address', async () => {
    const u = await userWithPassword(proxied, 'proxied-garbage');
    assert.equal(await signInAs(proxied, u.email, PASSWORD, { 'x-forwarded-for': 'not-an-ip' }), 303);
    assert.deepEqual(await sessionIps(proxied, u.userId), ['127.0.0.1']);
  });

  it('TRUST_PROXY is validated at start: an entry that is not an address or CIDR is refused; unset trusts none', async () => {
    for (const bad of ['127.0.0.1,proxy.example', '10.0.0.0/33', '::1/129', '*']) {
      assert.throws(
        () => loadConfig({ TRUST_PROXY: bad }),
        (e: Error) => e instanceof ConfigError && /TRUST_PROXY/.test(e.message),
        bad,
      );
    }
    assert.deepEqual(loadConfig({}).TRUST_PROXY, [], 'default: no proxy is trusted');
  });
});
