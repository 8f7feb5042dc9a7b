// The web forms' metadata text: typed like the CLI's --meta, checked by the API's own rules, and
// written back so that reading it again gives the same object.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../errors.js';
import { formatMetadataText, parseMetadataText } from './metadata-text.js';

const fieldsOf = (text: string) => {
  try {
    parseMetadataText(text);
  } catch (err) {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'VALIDATION_FAILED');
    return err.fields!;
  }
  assert.fail(`accepted: ${text}`);
};

describe('metadata text', () => {
  it('reads key = value lines, typed; blank lines and # comments are skipped; JSON objects too', () => {
    assert.deepEqual(
      parseMetadataText(
        'dept = legal\n\n# comment\nyear=2024\nsigned = true\ncode = "007"\nnote = \'a, b\'\nparties = ["acme", "globex"]\nurl = https://x.test/a=b',
      ),
      { dept: 'legal', year: 2024, signed: true, code: '007', note: 'a, b', parties: ['acme', 'globex'], url: 'https://x.test/a=b' },
    );
    assert.deepEqual(parseMetadataText('  '), {});
    assert.deepEqual(parseMetadataText('{"year": 2024, "tags2": ["x"]}'), { year: 2024, tags2: ['x'] });
  });

  it('refuses what the API refuses, naming the line or the key', () => {
    assert.match(fieldsOf('just words').metadata![0]!, /Line 1: write key = value/);
    assert.match(fieldsOf('a = 1\na = 2').metadata![0]!, /Line 2: "a" is given twice/);
    assert.match(fieldsOf('list = [1, 2]').metadata![0]!, /list holds quoted text/);
    assert.ok('metadata.1bad' in fieldsOf('1bad = x'));
    assert.ok('metadata' in fieldsOf('{"nested": {"x": 1}'));
    assert.ok('metadata.nested' in fieldsOf('{"nested": {"x": 1}}'));
  });

  it('writes metadata back so that it reads the same', () => {
    const meta = {
      year: 2024,
      code: '007',
      flag: 'true',
      dept: 'legal',
      empty: '',
      spaced: ' a ',
      lines: 'a\nb',
      list: ['x, y'],
      ok: false,
      br: '[x',
    };
    const text = formatMetadataText(meta);
    assert.match(text, /^br = "\[x"\ncode = "007"\ndept = legal\n/);
    assert.deepEqual(parseMetadataText(text), meta);
  });
});
