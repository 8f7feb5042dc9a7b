// One document: metadata, the processing error, its chunks with page numbers, and the actions of
// the API (download, replace, reprocess, delete), each through the API's own use case.
import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Session } from '../auth/sessions.js';
import type { DocumentRow } from '../documents/queries.js';
import { limitCaller } from '../limits/caller-limit.js';
import { deleteDocument, reprocessDocument } from '../documents/lifecycle.js';
import { documentDetail, downloadUrl } from '../documents/read.js';
import { getVisibleDocument } from '../documents/access.js';
import type { AppDeps } from '../types.js';
import { page, type WebContext, type WebEnv } from './context.js';
import { Tags } from './documents-table.js';
import { bytes, count, dateTime } from './format.js';
import { Csrf, Layout, Notice, PageHead, StatusBadge } from './layout.js';
import { EDIT_LABELS, EditDetails, editState, saveDetails, type EditState } from './document-edit.js';
import { ErrorSummary, type FormErrors } from './forms.js';
import { MetadataList } from './metadata-field.js';
import { UploadForm } from './upload-form.js';

const CHUNKS_PER_PAGE = 50;
const MAX_STATUS_IDS = 100;
type Detail = Awaited<ReturnType<typeof documentDetail>>;

const DONE: Record<string, string> = {
  added: 'Document added. Processing has started; this page updates when it is done.',
  replaced: 'File replaced. The old chunks left search; the new file is being processed.',
  reprocessed: 'Processing again from scratch. The old chunks left search until it is done.',
  edited: 'Details saved. Search sees them at once; the document was not processed again.',
};

interface PageProps {
  session: Session;
  d: DocumentRow;
  detail: Detail;
  chunkPage: number;
  done?: string;
  /** The edit form as sent, when it was refused. */
  edit?: { s: EditState; errors: FormErrors };
}

/** The document's facts; status and chunk count update live while it is processed. */
const DocumentFacts: FC<{ d: DocumentRow }> = ({ d }) => (
  <section class="card" aria-labelledby="meta-title">
    <h2 id="meta-title">Details</h2>
    <dl class="facts">
      <dt>Status</dt>
      <dd data-live-status>
        <StatusBadge status={d.status} />
      </dd>
      <dt>Chunks</dt>
      <dd data-live-chunks>{count(d.chunks_count)}</dd>
      <dt>Type</dt>
      <dd>
        {d.source_type}
        {d.media_type ? <span class="muted"> ({d.media_type})</span> : null}
      </dd>
      {d.original_filename ? (
        <>
          <dt>File</dt>
          <dd class="mono wrap">{d.original_filename}</dd>
        </>
      ) : null}
      <dt>Size</dt>
      <dd>{d.file_size ? bytes(d.file_size) : '—'}</dd>
      {d.source_url ? (
        <>
          <dt>Source</dt>
          <dd class="wrap">
            <a href={d.source_url} rel="noopener noreferrer nofollow">
              {d.source_url}
            </a>
          </dd>
        </>
      ) : null}
      <dt>Tags</dt>
      <dd>{d.tags.length ? <Tags tags={d.tags} href={(t) => `/app/?tag=${encodeURIComponent(t)}#documents`} /> : '—'}</dd>
      <dt>Metadata</dt>
      <dd>
        <MetadataList meta={d.metadata} />
      </dd>
      <dt>Added</dt>
      <dd>{dateTime(d.created_at)}</dd>
      <dt>Id</dt>
      <dd class="mono wrap">{d.id}</dd>
    </dl>
  </section>
);

const DocumentPage: FC<PageProps> = ({ session, d, detail, chunkPage, done, edit }) => {
  const owned = d.owner_id === session.user.id;
  const chunks = detail.chunks.slice(chunkPage * CHUNKS_PER_PAGE, (chunkPage + 1) * CHUNKS_PER_PAGE);
  const pages = Math.ceil(detail.chunks.length / CHUNKS_PER_PAGE);
  return (
    <Layout title={d.title || 'Document'} session={session} active="overview">
      <ErrorSummary errors={edit?.errors ?? {}} labels={EDIT_LABELS} />
      <PageHead
        title={d.title || '(untitled)'}
        lead={
          <>
            In <a href={`/app/collections/${d.collection_id}`}>{d.collection_name}</a> · {d.source_type}
          </>
        }
      >
        <div class="form-row">
          {d.blob_key ? (
            <a class="btn" href={`/app/documents/${d.id}/download`}>
              Download
            </a>
          ) : null}
          {owned ? (
            <>
              <form method="post" action={`/app/documents/${d.id}/reprocess`} class="inline-form">
                <Csrf token={session.csrfToken} />
                <button type="submit" class="btn">
                  Reprocess
                </button>
              </form>
              <a class="btn danger" href={`/app/documents/${d.id}/delete`}>
                Delete
              </a>
            </>
          ) : null}
        </div>
      </PageHead>
      {done && DONE[done] ? <Notice tone="info">{DONE[done]}</Notice> : null}
      <div data-doc-id={d.id} data-live={d.status === 'pending' ? '' : undefined} data-live-reload>
        <div class="notice error" role="alert" data-live-error hidden={!(d.status === 'failed' && d.error_message)}>
          <strong>Processing failed: </strong>
          <span data-live-error-text>{d.status === 'failed' ? d.error_message : ''}</span>
        </div>
        <div class="grid cols-2">
          <DocumentFacts d={d} />
          {owned ? (
            <UploadForm
              action={`/app/documents/${d.id}/replace`}
              csrf={session.csrfToken}
              multiple={false}
              title="Replace the file"
              idPrefix="replace"
            />
          ) : null}
        </div>
      </div>
      {owned ? (
        <section class="section">
          <EditDetails d={d} csrf={session.csrfToken} s={edit?.s ?? editState(d)} errors={edit?.errors ?? {}} />
        </section>
      ) : null}
      <section class="section" aria-labelledby="chunks-title" id="chunks">
        <div class="section-head">
          <h2 id="chunks-title">Chunks</h2>
          <span class="muted">
            {count(detail.chunks.length)} {detail.chunks.length === 1 ? 'chunk' : 'chunks'}
            {pages > 1 ? ` · page ${chunkPage + 1} of ${pages}` : ''}
          </span>
        </div>
        {detail.chunks.length === 0 ? (
          <div class="card empty">{d.status === 'pending' ? 'Not processed yet.' : 'No chunks: nothing was extracted.'}</div>
        ) : (
          <ol class="chunks">
            {chunks.map((ch) => (
              <li class="card chunk" id={`chunk-${ch.chunk_index}`}>
                <div class="chunk-head muted">
                  <span>Chunk {ch.chunk_index + 1}</span>
                  {ch.page !== null ? <span class="chunk-page">page {ch.page}</span> : null}
                </div>
                <p class="chunk-text">{ch.content}</p>
              </li>
            ))}
          </ol>
        )}
        {pages > 1 ? (
          <nav class="pager" aria-label="Chunk pages">
            {chunkPage > 0 ? <a href={`/app/documents/${d.id}?chunks=${chunkPage}#chunks`}>← Earlier chunks</a> : <span />}
            {chunkPage + 1 < pages ? <a href={`/app/documents/${d.id}?chunks=${chunkPage + 2}#chunks`}>Later chunks →</a> : null}
          </nav>
        ) : null}
      </section>
    </Layout>
  );
};

const DeletePage: FC<{ session: Session; d: DocumentRow }> = ({ session, d }) => (
  <Layout title={`Delete ${d.title}`} session={session} active="overview">
    <PageHead title={`Delete “${d.title || '(untitled)'}”?`} />
    <div class="card narrow">
      <p>It leaves search at once, and its stored file is purged after 7 days. This cannot be undone.</p>
      <form method="post" action={`/app/documents/${d.id}/delete`} class="form-row section">
        <Csrf token={session.csrfToken} />
        <button type="submit" class="btn danger solid">
          Delete document
        </button>
        <a class="btn" href={`/app/documents/${d.id}`}>
          Cancel
        </a>
      </form>
    </div>
  </Layout>
);

export function registerDocumentPages(web: Hono<WebEnv>, deps: AppDeps): void {
  // Live status of pending documents, polled by the page script (only documents the user can read).
  web.get('/documents/status', async (c) => {
    const caller = c.get('webCaller');
    const ids = [...new Set((c.req.query('ids') ?? '').split(',').filter(Boolean))].slice(0, MAX_STATUS_IDS);
    const found = await Promise.all(ids.map((id) => getVisibleDocument(deps.sql, caller, id).catch(() => null)));
    return c.json({
      documents: found
        .filter((d): d is DocumentRow => d !== null)
        .map((d) => ({ uuid: d.id, status: d.status, chunks_count: d.chunks_count, error_message: d.error_message })),
    });
  });

  const show = async (c: WebContext, edit?: PageProps['edit'], status = 200) => {
    const caller = c.get('webCaller');
    const id = c.req.param('id') ?? '';
    const [d, detail] = await Promise.all([getVisibleDocument(deps.sql, caller, id), documentDetail(deps, caller, id)]);
    const chunkPage = Math.max(0, (Number.parseInt(c.req.query('chunks') ?? '1', 10) || 1) - 1);
    return page(
      c,
      <DocumentPage session={c.get('session')!} d={d} detail={detail} chunkPage={chunkPage} done={c.req.query('done')} edit={edit} />,
      status,
    );
  };

  web.get('/documents/:id', (c) => show(c));

  web.post('/documents/:id/edit', async (c) => {
    const r = await saveDetails(deps, c.get('webCaller'), c.req.param('id'), c.get('form'));
    if (r.ok) return c.redirect(`/app/documents/${c.req.param('id')}?done=edited`, 303);
    return show(c, { s: r.s, errors: r.errors }, r.status);
  });

  // A session download: counted against the rate limit like an API download, then the same signed link.
  web.get('/documents/:id/download', async (c) => {
    const caller = c.get('webCaller');
    const headers = await limitCaller(deps, caller);
    for (const [k, v] of Object.entries(headers)) c.header(k, v);
    const origin = deps.config.PUBLIC_URL ?? new URL(c.req.url).origin;
    return c.redirect(await downloadUrl(deps, caller, c.req.param('id'), origin), 302);
  });

  web.post('/documents/:id/reprocess', async (c) => {
    const d = await reprocessDocument(deps, c.get('webCaller'), c.req.param('id'));
    return c.redirect(`/app/documents/${d.id}?done=reprocessed`, 303);
  });

  web.get('/documents/:id/delete', async (c) => {
    const d = await getVisibleDocument(deps.sql, c.get('webCaller'), c.req.param('id'));
    return page(c, <DeletePage session={c.get('session')!} d={d} />);
  });

  web.post('/documents/:id/delete', async (c) => {
    const caller = c.get('webCaller');
    const d = await getVisibleDocument(deps.sql, caller, c.req.param('id'));
    await deleteDocument(deps, caller, d.id);
    return c.redirect(`/app/collections/${d.collection_id}?done=document-deleted`, 303);
  });
}
