// parseWhere on its own: the readable --where form and the filter JSON it stands for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metaFlags, parseWhere } from './where.js';

describe('--where', () => {
  it('parses the readable --where form into the filter JSON', () => {
    assert.deepEqual(parseWhere('year >= 2024 and dept = legal'), { and: [{ year: { gte: 2024 } }, { dept: { eq: 'legal' } }] });
    assert.deepEqual(parseWhere('not (tags in (draft, \'old one\') or x exists) and name != "a b" and p prefix src/'), {
      and: [
        { not: { or: [{ tags: { in: ['draft', 'old one'] } }, { x: { exists: true } }] } },
        { name: { ne: 'a b' } },
        { p: { prefix: 'src/' } },
      ],
    });
    assert.deepEqual(parseWhere("flag = true or v = '2024' or k not in (1, 2) or k not exists"), {
      or: [{ flag: { eq: true } }, { v: { eq: '2024' } }, { k: { nin: [1, 2] } }, { k: { exists: false } }],
    });
    for (const bad of ['', 'year >=', 'year ~ 1', '(a = 1', 'a = 1 b = 2', 'a in 1']) assert.throws(() => parseWhere(bad), /--where/, bad);
  });

  it('--meta key=value types values as --where does', () => {
    assert.deepEqual(metaFlags(['year=2024', "v='2024'", 'ok=true', 'repo=acme/api', 'eq=a=b']), {
      year: 2024,
      v: '2024',
      ok: true,
      repo: 'acme/api',
      eq: 'a=b',
    });
    assert.throws(() => metaFlags(['novalue']), /--meta/);
  });
});
