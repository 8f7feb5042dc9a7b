import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.js';

// Cheap parameters keep the unit test fast; the stored format carries them, so verify still works.
const FAST = { log2N: 10, r: 8, p: 1 };

describe('passwords (scrypt)', () => {
  it('stores algorithm, parameters, salt and hash; verifies only the right password', async () => {
    const h = await hashPassword('correct horse battery staple', FAST);
    assert.match(h, /^scrypt\$10\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.equal(await verifyPassword('correct horse battery staple', h), true);
    assert.equal(await verifyPassword('correct horse battery stapLe', h), false);
    assert.equal(await verifyPassword('', h), false);
  });

  it('salts every hash', async () => {
    assert.notEqual(await hashPassword('same password here', FAST), await hashPassword('same password here', FAST));
  });

  it('uses the memory-hard defaults (N = 2^15, r = 8)', async () => {
    assert.match(await hashPassword('default cost check'), /^scrypt\$15\$8\$1\$/);
  });

  it('treats malformed or hostile stored values as a mismatch, never an error', async () => {
    for (const bad of [
      '',
      'plain',
      'scrypt$10$8$1$abc',
      'bcrypt$10$8$1$a$b',
      'scrypt$40$8$1$AAAA$' + 'A'.repeat(43),
      'scrypt$x$8$1$AAAA$' + 'A'.repeat(43),
    ]) {
      assert.equal(await verifyPassword('anything at all', bad), false, bad);
    }
  });

  it('normalizes Unicode so the same password typed differently still matches', async () => {
    const h = await hashPassword('caf\u00e9 au lait please', FAST);
    assert.equal(await verifyPassword('cafe\u0301 au lait please', h), true);
  });

  it('requires at least 12 characters', () => {
    assert.match(passwordProblem('short')!, /at least 12/);
    assert.equal(passwordProblem('twelve chars'), null);
    assert.match(passwordProblem(' '.repeat(20))!, /spaces/);
  });
});
