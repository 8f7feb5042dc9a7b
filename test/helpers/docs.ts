import type { HttpResult } from './daemon.js';
import type { http } from './daemon.js';

type Req = ReturnType<typeof http>;

/** Creates a collection and returns its JSON. */
export async function makeCollection(req: Req, key: string, name: string, extra: Record<string, unknown> = {}) {
  const r = await req('POST', '/api/v1/collections/', { key, json: { name, ...extra } });
  if (r.status !== 201) throw new Error(`collection create failed: ${r.status} ${r.text}`);
  return r.body;
}

/** Uploads an inline text document (JSON body). */
export async function addText(req: Req, key: string, collectionUuid: string, title: string, content: string, tags?: string) {
  const r = await req('POST', `/api/v1/collections/${collectionUuid}/documents/`, {
    key,
    json: { source_type: 'text', title, content, ...(tags ? { tags } : {}) },
  });
  if (r.status !== 201) throw new Error(`text upload failed: ${r.status} ${r.text}`);
  return r.body;
}

/** Polls until none of the given documents is pending; returns their details. */
export async function waitSettled(req: Req, key: string, ids: string[], timeoutMs = 60_000): Promise<any[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const rows: HttpResult[] = await Promise.all(ids.map((id) => req('GET', `/api/v1/documents/${id}/`, { key })));
    if (rows.every((r) => r.status === 200 && r.body.status !== 'pending')) return rows.map((r) => r.body);
    if (Date.now() > end) throw new Error(`documents still pending after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 150));
  }
}
