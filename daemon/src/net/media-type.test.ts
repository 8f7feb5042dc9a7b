import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatMediaType, isJsonMediaType, mediaTypeEssence, parseMediaType } from './media-type.js';

test('parseMediaType follows RFC 9110 §8.3.1: empty parameters, OWS around `;`, case-insensitive names', () => {
  const canonical = (v: string) => {
    const m = parseMediaType(v);
    return m && formatMediaType(m);
  };
  assert.equal(canonical('application/json'), 'application/json');
  assert.equal(canonical('application/json;;;'), 'application/json');
  assert.equal(canonical(' Application/JSON ; Charset=utf-8 ;'), 'application/json; charset=utf-8');
  assert.equal(canonical('multipart/form-data;; BOUNDARY="XB"'), 'multipart/form-data; boundary=XB');
  assert.equal(canonical('multipart/form-data; boundary="a b(c)"'), 'multipart/form-data; boundary="a b(c)"');
  assert.equal(canonical('text/plain; x="say \\"hi\\""'), 'text/plain; x="say \\"hi\\""');
  assert.deepEqual(parseMediaType('text/plain; x="a\\\\b"')?.parameters, [['x', 'a\\b']]);
  assert.equal(parseMediaType('Text/Plain')?.essence, 'text/plain');
});

test('parseMediaType refuses what is no media type', () => {
  for (const v of [
    '',
    'json',
    ';',
    'application/',
    '/json',
    'application /json',
    'application/json/x',
    'application/json; charset',
    'application/json; =utf-8',
    'application/json; charset =utf-8',
    'application/json; charset= utf-8',
    'application/json charset=utf-8',
    'application/json; x="unterminated',
    'application/json; x="a"b',
    'application/json; x=a b',
  ])
    assert.equal(parseMediaType(v), undefined, JSON.stringify(v));
});

test('isJsonMediaType: application/json and +json suffixes, nothing that merely looks alike', () => {
  for (const v of ['application/json', 'application/json;;;', 'APPLICATION/JSON; charset="utf-8"', 'application/problem+json'])
    assert.equal(isJsonMediaType(v), true, v);
  for (const v of [
    undefined,
    'application/jsonx',
    'application/+json',
    'text/json',
    'application/json-patch',
    'application/json; x',
    'text/plain; x=application/json',
  ])
    assert.equal(isJsonMediaType(v), false, String(v));
  assert.equal(mediaTypeEssence('Multipart/Form-Data; boundary=x'), 'multipart/form-data');
  assert.equal(mediaTypeEssence('multipart/form-datax; boundary=x'), 'multipart/form-datax');
  assert.equal(mediaTypeEssence(undefined), undefined);
});
