import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BACKGROUND_FLOOR, defaultRows } from '../daemon/src/search/fusion-defaults.js';

// The failure this file guards against: the built-in model's floor was marked `measured` with the
// note "placeholder, measured below", and the defaults table's row (docs/search-defaults.md) read
// FLOOR_VALUE / FLOOR_SUMMARY. A figure marked measured must come from a measurement: no placeholder token may survive, and every
// measured mark carries its figures.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TOKENS = /FLOOR_VALUE|FLOOR_SUMMARY|\bTBD\b|placeholder/i;
const UPPER = /\b(PENDING|TODO|XXX)\b/;
const PLACEHOLDER = { test: (s: string) => TOKENS.test(s) || UPPER.test(s) };
const isPlaceholder = (s: string) => PLACEHOLDER.test(s);

/** A measured note names its benchmark data and gives at least one figure with decimals. */
function carriesFigure(note: string): boolean {
  return /SciFact|NFCorpus/.test(note) && /\d\.\d{2,}|\d+ ?\/ ?\d+/.test(note);
}

describe('no placeholder survives in the search defaults', () => {
  it('the README and the docs that hold its search tables have no placeholder tokens', () => {
    for (const file of ['README.md', 'docs/search-defaults.md', 'docs/languages.md']) {
      const text = readFileSync(path.join(root, file), 'utf8');
      const hits = text.split('\n').filter((l) => PLACEHOLDER.test(l));
      assert.deepEqual(hits, [], file);
    }
  });

  it('the defaults (source and every row) have no placeholder tokens', () => {
    const source = readFileSync(path.join(root, 'daemon/src/search/fusion-defaults.ts'), 'utf8');
    assert.deepEqual(
      source.split('\n').filter((l) => PLACEHOLDER.test(l) && !l.includes('no-placeholder test')),
      [],
    );
    for (const d of defaultRows()) for (const part of [d.fusion, d.floor]) assert.ok(!isPlaceholder(part.note), `${d.row}: ${part.note}`);
    assert.ok(!isPlaceholder(BACKGROUND_FLOOR.note), BACKGROUND_FLOOR.note);
  });

  it('every default marked measured carries its figures', () => {
    const marks = [
      ...defaultRows().flatMap((d) => [
        { what: `${d.row} fusion`, ...d.fusion },
        { what: `${d.row} floor`, ...d.floor },
      ]),
      { what: 'background floor', ...BACKGROUND_FLOOR },
    ];
    const bad = marks.filter((m) => m.basis === 'measured' && !carriesFigure(m.note)).map((m) => `${m.what}: ${m.note}`);
    assert.deepEqual(bad, []);
  });

  it('the checks catch what they are for', () => {
    assert.ok(isPlaceholder('| `use-lite-512` | FLOOR_VALUE |'));
    assert.ok(isPlaceholder('SciFact: placeholder, measured below'));
    assert.ok(!isPlaceholder('documents still pending'));
    assert.equal(carriesFigure('SciFact: placeholder, measured below'), false);
    assert.equal(carriesFigure('SciFact nDCG@10: weighted 0.05 → 0.695'), true);
  });
});
