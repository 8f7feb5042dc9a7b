// Shared by the hostile-input chaos tests: a daemon with the job worker and a fast embedding
// stand-in, batch uploads, the documents' final rows, and a sampler of the process's memory.
import { startFakeOllama, type FakeOllama } from './fake-ollama-server.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './daemon.js';
import { makeCollection, waitSettled } from './docs.js';

export interface ChaosRig {
  d: TestDaemon;
  tenant: Tenant;
  collection: string;
  req: ReturnType<typeof http>;
  close(): Promise<void>;
}

/** A daemon running the worker, embedding through the fake Ollama (the one stand-in allowed). */
export async function startChaosRig(label: string, env: Record<string, string>): Promise<ChaosRig> {
  const ollama: FakeOllama = await startFakeOllama();
  const d = await startTestDaemon({
    label,
    worker: true,
    env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, ...env },
  });
  const tenant = await createTenant(d, label);
  const req = http(d.url);
  const collection = (await makeCollection(req, tenant.key, `${label} docs`)).uuid as string;
  return {
    d,
    tenant,
    collection,
    req,
    async close() {
      await d.close();
      await ollama.close();
    },
  };
}

export interface UploadFile {
  name: string;
  data: Uint8Array | string;
  type: string;
}

/** One multipart batch (`files`); returns the new documents' uuids by filename. */
export async function uploadBatch(rig: ChaosRig, files: UploadFile[]): Promise<Map<string, string>> {
  const form = new FormData();
  for (const f of files)
    form.append('files', new Blob([typeof f.data === 'string' ? f.data : new Uint8Array(f.data)], { type: f.type }), f.name);
  const r = await rig.req('POST', `/api/v1/collections/${rig.collection}/documents/`, { key: rig.tenant.key, body: form });
  if (r.status !== 201) throw new Error(`batch upload failed: ${r.status} ${r.text}`);
  if (r.body.total_skipped) throw new Error(`files skipped: ${JSON.stringify(r.body.skipped)}`);
  return new Map(r.body.uploaded.map((u: { original_filename: string; uuid: string }) => [u.original_filename, u.uuid]));
}

export interface FinalRow {
  status: string;
  error_message: string;
  attempts: number;
  chunks_count: number;
}

/** Waits until none of the documents is pending, then reads their rows (attempts is not in the API). */
export async function settleRows(rig: ChaosRig, ids: string[], timeoutMs = 120_000): Promise<Map<string, FinalRow>> {
  await waitSettled(rig.req, rig.tenant.key, ids, timeoutMs);
  const rows = await rig.d.deps.sql<(FinalRow & { id: string })[]>`
    select id, status, error_message, attempts, chunks_count from documents where id in ${rig.d.deps.sql(ids)}`;
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * Samples this process's resident memory (the daemon, its worker and extraction threads all live
 * in it) every 20 ms, so a short spike is seen too.
 */
export function watchMemory(): { baselineMb: number; stop(): { peakMb: number; growthMb: number } } {
  const mb = () => process.memoryUsage.rss() / (1024 * 1024);
  const baselineMb = mb();
  let peakMb = baselineMb;
  const timer = setInterval(() => {
    peakMb = Math.max(peakMb, mb());
  }, 20);
  return {
    baselineMb,
    stop() {
      clearInterval(timer);
      peakMb = Math.max(peakMb, mb());
      return { peakMb, growthMb: peakMb - baselineMb };
    },
  };
}
