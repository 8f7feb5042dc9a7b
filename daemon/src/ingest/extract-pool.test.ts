import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../../../test/helpers/chaos.js';
import { docxBomb, manyPagePdf } from '../../../test/helpers/hostile-files.js';
import { ExtractionError } from './extract.js';
import { ExtractionPool } from './extract-pool.js';

// The extraction threads' own limits (memory, wall time) with real worker threads. One thread, so
// the good documents are queued behind the bad one: they must be extracted, not failed with it.

const pools: ExtractionPool[] = [];
after(async () => {
  for (const p of pools) await p.close();
});

function pool(opts: Partial<ConstructorParameters<typeof ExtractionPool>[0]>): ExtractionPool {
  const p = new ExtractionPool({ threads: 1, memoryMb: 1024, timeoutMs: 120_000, ...opts });
  pools.push(p);
  return p;
}

const txt = (s: string) => ({ sourceType: 'txt', data: Buffer.from(s) });

function permanent(message: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof ExtractionError, `expected an ExtractionError, got ${String(e)}`);
    assert.equal(e.permanent, true);
    assert.match(e.message, message);
    return true;
  };
}

test('a document that runs the thread out of memory fails permanently; the ones queued behind it are extracted', async () => {
  const p = pool({ threads: 1, memoryMb: 96 });
  assert.deepEqual(await p.extract(txt('warm up the thread')), { text: 'warm up the thread' });
  // 24 MB of XML paragraphs: a few hundred MB of DOM, far past a 96 MB heap.
  const bomb = p.extract({ sourceType: 'docx', data: docxBomb(24 * 1024 * 1024) });
  const queued = [p.extract(txt('first queued document')), p.extract(txt('second queued document'))];
  await assert.rejects(bomb, permanent(/^Extraction ran out of memory: the document needs more than 96 MiB \(EXTRACT_MEMORY_MB\)\.$/));
  assert.deepEqual(
    (await Promise.all(queued)).map((r) => r.text),
    ['first queued document', 'second queued document'],
  );
  assert.equal(p.stats().replaced, 1, 'the thread that ran out of memory was replaced once');
});

test('a document that takes longer than EXTRACT_TIMEOUT_MS fails permanently; the thread is replaced', async () => {
  const p = pool({ threads: 1, timeoutMs: 3000 });
  // Load pdf.js first, so the limit below measures only the slow document.
  assert.equal((await p.extract({ sourceType: 'pdf', data: manyPagePdf(2) })).pages?.length, 2);
  // ~6 ms a page when idle: several times the limit even on a fast machine.
  const slow = p.extract({ sourceType: 'pdf', data: manyPagePdf(10_000) });
  const queued = p.extract(txt('waiting behind a slow PDF'));
  await assert.rejects(slow, permanent(/^Extraction took longer than 3 s; the limit is 3 s \(EXTRACT_TIMEOUT_MS\)\.$/));
  assert.equal((await queued).text, 'waiting behind a slow PDF');
  assert.equal(p.stats().replaced, 1);
});

test('limits reach the thread: a PDF over the page limit is refused there', async () => {
  const p = pool({ threads: 1, maxPdfPages: 10 });
  await assert.rejects(p.extract({ sourceType: 'pdf', data: manyPagePdf(11) }), permanent(/has 11 pages; the limit is 10/));
  assert.equal(p.stats().replaced, 0, 'an ordinary refusal keeps the thread');
});

test('threads run documents side by side, up to the pool size', async () => {
  const p = pool({ threads: 2 });
  const results = await Promise.all(['a', 'b', 'c', 'd'].map((s) => p.extract(txt(`document ${s}`))));
  assert.deepEqual(
    results.map((r) => r.text),
    ['document a', 'document b', 'document c', 'document d'],
  );
  assert.ok(p.stats().threads <= 2);
});

test('warm() starts the threads ahead of any document; documents then run on them, and warming again starts none', async () => {
  const p = pool({ threads: 2 });
  await p.warm();
  assert.deepEqual({ threads: p.stats().threads, spawned: p.stats().spawned }, { threads: 2, spawned: 2 });
  const results = await Promise.all(['a', 'b', 'c'].map((s) => p.extract(txt(`warm document ${s}`))));
  assert.deepEqual(
    results.map((r) => r.text),
    ['warm document a', 'warm document b', 'warm document c'],
  );
  await p.warm();
  assert.equal(p.stats().spawned, 2, 'the documents and the second warm() used the warm threads');
});

test('a warm thread no document comes to exits after idleMs, as an idle one does', async () => {
  const p = pool({ threads: 1, idleMs: 100 });
  await p.warm();
  assert.equal(p.stats().threads, 1);
  await until(() => (p.stats().threads === 0 ? true : undefined), 20_000, 'the idle warm thread to exit');
  assert.equal(p.stats().threads, 0, 'the idle warm thread exited');
  assert.equal((await p.extract(txt('after the idle exit'))).text, 'after the idle exit');
  assert.equal(p.stats().spawned, 2, 'a new thread for the next document');
});

test('closing the pool while its threads load their parsers ends warm() too', async () => {
  const p = pool({ threads: 1 });
  const warming = p.warm().then(() => 'resolved');
  await p.close();
  // A bound on the wait, not a sleep: warm() settles as soon as close() has run.
  const bound = new Promise<string>((r) => setTimeout(() => r('still waiting after 10 s'), 10_000).unref());
  assert.equal(await Promise.race([warming, bound]), 'resolved');
});
