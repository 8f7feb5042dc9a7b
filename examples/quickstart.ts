// docsift in 20 lines. Env: DOCSIFT_URL, DOCSIFT_API_KEY, WEBHOOK_URL (a receiver the server can reach).
import { createClient, filesInDirectory } from '@docsift/sdk/node';

const docsift = createClient({ baseUrl: process.env.DOCSIFT_URL ?? 'http://localhost:8080', apiKey: process.env.DOCSIFT_API_KEY });
const collection = await docsift.collections.create({ name: `Quickstart ${new Date().toISOString()}` });
const files = await filesInDirectory(process.argv[2] ?? 'test/fixtures/samples');
const upload = await docsift.documents.uploadMany(collection.uuid, files, { onProgress: (p) => console.error(`uploaded ${p.filesDone}/${p.filesTotal} files, ${p.bytesDone}/${p.bytesTotal} bytes`) });
const indexing = await docsift.documents.waitForSettled(upload.uploaded.map((d) => d.uuid), { timeoutMs: 120_000 });
console.log(`uploaded ${upload.uploaded.length}, skipped ${upload.skipped.length}; indexed ${indexing.indexed.length}, failed ${indexing.failed.length}`);
const { results } = await docsift.search({ query: process.argv[3] ?? 'kestrelmarble', collection: collection.slug, limit: 3 });
for (const r of results) console.log(`${r.score.toFixed(3)}  ${r.title}: ${r.content.replace(/\s+/g, ' ').slice(0, 80)}`);
const key = await docsift.keys.create({ name: 'quickstart-reader', collections: [collection.slug] });
const rotated = await docsift.keys.rotate(key.uuid); // same name and grants, new secret; the old one stops working
console.log(`rotated key ${key.prefix}… → ${rotated.prefix}…`);
const hook = await docsift.webhooks.set(process.env.WEBHOOK_URL ?? 'https://example.com/hooks/docsift');
if ('secret' in hook) console.log(`webhook secret (shown once): ${hook.secret}`);
const test = await docsift.webhooks.test();
console.log(`webhook test: HTTP ${test.status_code} in ${test.duration_ms} ms`);
const usage = await docsift.usage.get({ days: 7 });
console.log(`last 7 days: ${usage.total_requests} requests, ${usage.error_count} errors, ${usage.avg_response_time_ms} ms average`);
