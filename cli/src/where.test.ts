// parseWhere on its own: the readable --where form and the filter JSON it stands for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from './errors.js';
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

  it('common mistakes get a usage error whose hint says what to write instead', () => {
    const hintOf = (src: string) => {
      try {
        parseWhere(src);
      } catch (err) {
        assert.ok(err instanceof UsageError, src);
        return `${err.message} ${err.hint ?? ''}`;
      }
      assert.fail(`"${src}" parsed`);
    };
    assert.match(hintOf('dept == legal'), /"==".*dept = legal/s);
    assert.match(hintOf('dept === legal'), /"===".*dept = legal/s);
    assert.match(hintOf('year >= 2024 && dept = legal'), /"&&".*\band\b/s);
    assert.match(hintOf('a = 1 || b = 2'), /"\|\|".*\bor\b/s);
    assert.match(hintOf('!(dept = legal)'), /"!".*\bnot\b/s);
    assert.match(hintOf('dept = legal AND'), /at the end/);
  });

  it('a quoted number in a comparison is kept as text, with a note saying how to compare the number', () => {
    const notes: string[] = [];
    assert.deepEqual(parseWhere("year >= '2024' and v = \"7\" and name = 'acme'", notes), {
      and: [{ year: { gte: '2024' } }, { v: { eq: '7' } }, { name: { eq: 'acme' } }],
    });
    assert.equal(notes.length, 2, notes.join('\n'));
    assert.match(notes[0]!, /'2024' is quoted.*text.*year >= 2024/s);
    assert.match(notes[1]!, /"7" is quoted.*v = 7/s);
    const none: string[] = [];
    parseWhere("year >= 2024 and tags in ('2024')", none);
    assert.deepEqual(none, []);
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
