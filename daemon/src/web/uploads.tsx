// Uploads and replacements from the web UI. The multipart body is never parsed here: it streams
// into the API's use cases (uploadDocuments, replaceDocument), which enforce the 50 MiB and batch
// limits while reading and decide write access before the first byte. The page script asks for
// JSON (the API's response shapes and error envelope); a plain form post gets a results page.
import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { toAppError } from '../routes/router.js';
import type { Session } from '../auth/sessions.js';
import type { DocumentRow } from '../documents/queries.js';
import { AppError, errorBody } from '../errors.js';
import { limitCaller } from '../limits/caller-limit.js';
import { rawBody } from '../routes/documents.js';
import { uploadJson } from '../documents/json.js';
import { replaceDocument } from '../documents/lifecycle.js';
import { uploadDocuments, type UploadOutcome } from '../documents/upload.js';
import type { AppDeps, AppEnv } from '../types.js';
import { page, type WebContext, type WebEnv } from './context.js';
import { Layout, Notice, PageHead, StatusBadge } from './layout.js';
import { oneMetadataField } from './metadata-field.js';
import { parseMetadataText } from './metadata-text.js';

/** Paths whose POST body streams into an upload: the body limit and form parsing of other forms skip them. */
export const STREAMED_UPLOAD = /^\/app\/(collections\/[^/]+\/documents|documents\/[^/]+\/replace)\/?$/;

const ResultsPage: FC<{
  session: Session;
  collectionId: string;
  uploaded: DocumentRow[];
  skipped: { filename: string; reason: string }[];
}> = (p) => (
  <Layout title="Upload finished" session={p.session} active="overview">
    <PageHead title="Upload finished" lead={`${p.uploaded.length} uploaded, ${p.skipped.length} skipped.`} />
    {p.skipped.length ? (
      <Notice tone="warn" title="Skipped:">
        <ul>
          {p.skipped.map((s) => (
            <li>
              <span class="mono">{s.filename}</span>: {s.reason}
            </li>
          ))}
        </ul>
      </Notice>
    ) : null}
    <div class="card">
      <ul class="plain-list">
        {p.uploaded.map((d) => (
          <li>
            <a href={`/app/documents/${d.id}`}>{d.title}</a> <StatusBadge status={d.status} />
          </li>
        ))}
      </ul>
      <p class="section">
        <a class="btn" href={`/app/collections/${p.collectionId}#documents`}>
          Back to the collection
        </a>
      </p>
    </div>
  </Layout>
);

function outcomeJson(r: UploadOutcome) {
  if (r.kind === 'single') return uploadJson(r.document);
  return { uploaded: r.uploaded.map(uploadJson), skipped: r.skipped, total_uploaded: r.uploaded.length, total_skipped: r.skipped.length };
}

/** The form's metadata field holds lines (metadata-text.ts): the API's JSON before the upload checks it. */
function metadataFromText(fields: Record<string, string>): Record<string, string> {
  if (fields.metadata === undefined) return fields;
  try {
    return { ...fields, metadata: JSON.stringify(parseMetadataText(fields.metadata)) };
  } catch (err) {
    if (err instanceof AppError) throw new AppError(err.code, err.message, oneMetadataField(err.fields));
    throw err;
  }
}

const wantsJson = (c: WebContext) => (c.req.header('accept') ?? '').includes('application/json');

/** Runs an upload; for the page script, refusals become the API's error envelope with its status. */
async function streamed(c: WebContext, deps: AppDeps, run: () => Promise<Response>): Promise<Response> {
  try {
    const headers = await limitCaller(deps, c.get('webCaller'));
    for (const [k, v] of Object.entries(headers)) c.header(k, v);
    return await run();
  } catch (err) {
    if (!wantsJson(c)) throw err;
    const e = toAppError(err);
    if (e.status >= 500) (c.get('logger') ?? deps.logger).error({ err, path: c.req.path }, 'web upload failed');
    for (const [k, v] of Object.entries(e.headers ?? {})) c.header(k, v);
    return c.json(errorBody(e), e.status as 400);
  }
}

export function registerUploadRoutes(web: Hono<WebEnv>, deps: AppDeps): void {
  const body = (c: WebContext) => rawBody(c as unknown as Context<AppEnv>);

  web.post('/collections/:id/documents', (c) =>
    streamed(c, deps, async () => {
      const r = await uploadDocuments(deps, c.get('webCaller'), c.req.param('id'), body(c), { fields: metadataFromText });
      if (wantsJson(c)) return c.json(outcomeJson(r), 201);
      const uploaded = r.kind === 'single' ? [r.document] : r.uploaded;
      const skipped = r.kind === 'single' ? [] : r.skipped;
      return page(
        c,
        <ResultsPage session={c.get('session')!} collectionId={c.req.param('id')} uploaded={uploaded} skipped={skipped} />,
        201,
      );
    }),
  );

  web.post('/documents/:id/replace', (c) =>
    streamed(c, deps, async () => {
      const d = await replaceDocument(deps, c.get('webCaller'), c.req.param('id'), body(c));
      if (wantsJson(c)) return c.json(uploadJson(d), 200);
      return c.redirect(`/app/documents/${d.id}?done=replaced`, 303);
    }),
  );
}
