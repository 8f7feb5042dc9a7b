import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextCursorOf, nextLink, PagePromise } from './pagination.js';

test('Link rel=next is found among several relations', () => {
  assert.equal(nextLink('</api/v1/documents/?cursor=abc&limit=2>; rel="next"'), '/api/v1/documents/?cursor=abc&limit=2');
  assert.equal(nextLink('<https://x/a?p=1>; rel="prev", <https://x/a?p=3>; rel="next"'), 'https://x/a?p=3');
  assert.equal(nextLink('<https://x/a?p=3>; rel="prev last"'), null);
  assert.equal(nextLink(null), null);
});

test('X-Next-Cursor wins; the Link cursor parameter is the fallback', () => {
  assert.equal(nextCursorOf(new Response(null, { headers: { 'x-next-cursor': 'c1', link: '</x?cursor=c2>; rel="next"' } })), 'c1');
  assert.equal(nextCursorOf(new Response(null, { headers: { link: '</x?cursor=c2&limit=5>; rel="next"' } })), 'c2');
  assert.equal(nextCursorOf(new Response(null)), null);
});

test('a PagePromise awaits to the first page and iterates every page lazily', async () => {
  const pages: Record<string, { items: number[]; next?: string }> = {
    start: { items: [1, 2], next: 'b' },
    b: { items: [3, 4], next: 'c' },
    c: { items: [5] },
  };
  const calls: (string | undefined)[] = [];
  const make = () =>
    new PagePromise<number>(async (cursor) => {
      calls.push(cursor);
      const p = pages[cursor ?? 'start']!;
      return { data: p.items, response: new Response(null, { headers: p.next ? { 'x-next-cursor': p.next } : {} }) };
    });
  const first = await make();
  assert.deepEqual(first.data, [1, 2]);
  assert.equal(first.nextCursor, 'b');
  assert.deepEqual((await first.getNextPage()).data, [3, 4]);
  calls.length = 0;
  const all: number[] = [];
  for await (const n of make()) all.push(n);
  assert.deepEqual(all, [1, 2, 3, 4, 5]);
  assert.deepEqual(calls, [undefined, 'b', 'c']);
  calls.length = 0;
  assert.deepEqual(await make().toArray(3), [1, 2, 3]);
  assert.deepEqual(calls, [undefined, 'b'], 'stops fetching once enough items are collected');
});
