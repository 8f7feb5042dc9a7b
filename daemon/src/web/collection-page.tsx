// One collection: its facts, the public toggle, adding documents (files, text, a web page) and its
// documents with status and tag filters. Subscribed collections are shown read-only.
import type { Hono } from 'hono';
import type { FC } from 'hono/jsx';
import type { Session } from '../auth/sessions.js';
import type { CollectionRow } from '../collections/queries.js';
import type { DocumentRow, DocumentStatus } from '../documents/queries.js';
import { AppError } from '../errors.js';
import { getVisibleCollection } from '../collections/service.js';
import { listDocuments } from '../documents/read.js';
import type { DocumentInput } from '../documents/checks.js';
import { createDocument } from '../documents/upload.js';
import type { AppDeps } from '../types.js';
import { field, page, type WebContext, type WebEnv } from './context.js';
import { DocumentFilters, DocumentsTable, qs, STATUSES } from './documents-table.js';
import { count, dateTime } from './format.js';
import { ErrorSummary, errorsFromFields, TextArea, TextField, type FormErrors } from './forms.js';
import { Badge, Csrf, Layout, Notice, PageHead } from './layout.js';
import { statusCounts, visibleTags, NO_COUNTS, type StatusCounts } from './queries.js';
import { MetadataField, oneMetadataField } from './metadata-field.js';
import { parseMetadataText } from './metadata-text.js';
import { UploadForm } from './upload-form.js';

const PAGE_SIZE = 25;
const TEXT_IDS = {
  title: 'text-title',
  content: 'text-content',
  tags: 'text-tags',
  metadata: 'text-metadata',
  source_type: 'text-content',
};
const URL_IDS = { url: 'url-url', title: 'url-title', tags: 'url-tags', metadata: 'url-metadata', source_type: 'url-url' };
const LABELS: Record<string, string> = {
  'text-title': 'Title',
  'text-content': 'Text',
  'text-tags': 'Tags',
  'text-metadata': 'Metadata',
  'url-url': 'URL',
  'url-title': 'Title',
  'url-tags': 'Tags',
  'url-metadata': 'Metadata',
};

export interface AddForms {
  text: { title: string; content: string; tags: string; metadata: string };
  url: { url: string; title: string; tags: string; metadata: string };
}
const emptyForms = (): AddForms => ({
  text: { title: '', content: '', tags: '', metadata: '' },
  url: { url: '', title: '', tags: '', metadata: '' },
});

const DONE: Record<string, string> = {
  created: 'Collection created. Add documents below.',
  updated: 'Collection saved.',
  public: 'The collection is public: it is listed in the catalogue and anyone signed in can subscribe.',
  private: 'The collection is private again: subscribers lost access at once.',
  'document-deleted': 'Document deleted. It left search at once.',
};

interface Props {
  session: Session;
  c: CollectionRow;
  /** The collection's text search language (TEXT_SEARCH_CONFIG for collections older than the setting). */
  language: string;
  counts: StatusCounts;
  docs: DocumentRow[];
  next: string | null;
  tagOptions: string[];
  filter: { status?: DocumentStatus; tag?: string; cursor?: string };
  forms: AddForms;
  errors: FormErrors;
  done?: string;
}

const AddDocuments: FC<{ p: Props }> = ({ p }) => {
  const { c, forms, errors, session } = p;
  return (
    <section class="section" aria-labelledby="add-title" id="add">
      <div class="section-head">
        <h2 id="add-title">Add documents</h2>
        <span class="muted">Processing starts at once; the status updates here while it runs.</span>
      </div>
      <div class="grid cols-3 add-grid">
        <UploadForm
          action={`/app/collections/${c.id}/documents`}
          csrf={session.csrfToken}
          multiple
          title="Upload files"
          idPrefix="upload"
        />
        <form method="post" action={`/app/collections/${c.id}/text#add`} class="card" aria-labelledby="text-form-title" novalidate>
          <h3 id="text-form-title">Add text</h3>
          <Csrf token={session.csrfToken} />
          <TextField
            id="text-title"
            name="title"
            label="Title"
            value={forms.text.title}
            errors={errors}
            maxlength={500}
            hint="Optional: defaults to the first line."
          />
          <TextArea id="text-content" name="content" label="Text" value={forms.text.content} errors={errors} rows={5} required />
          <TextField id="text-tags" name="tags" label="Tags" value={forms.text.tags} errors={errors} hint="Comma-separated, optional." />
          <MetadataField id="text-metadata" value={forms.text.metadata} errors={errors} />
          <button type="submit" class="btn primary">
            Add text
          </button>
        </form>
        <form method="post" action={`/app/collections/${c.id}/url#add`} class="card" aria-labelledby="url-form-title" novalidate>
          <h3 id="url-form-title">Add a web page</h3>
          <Csrf token={session.csrfToken} />
          <TextField
            id="url-url"
            name="url"
            type="url"
            label="URL"
            value={forms.url.url}
            errors={errors}
            maxlength={2048}
            required
            placeholder="https://…"
            hint="Fetched by the server; private and local addresses are refused."
          />
          <TextField id="url-title" name="title" label="Title" value={forms.url.title} errors={errors} maxlength={500} hint="Optional." />
          <TextField id="url-tags" name="tags" label="Tags" value={forms.url.tags} errors={errors} hint="Comma-separated, optional." />
          <MetadataField id="url-metadata" value={forms.url.metadata} errors={errors} />
          <button type="submit" class="btn primary">
            Add web page
          </button>
        </form>
      </div>
    </section>
  );
};

const CollectionPage: FC<Props> = (p) => {
  const { c, session, filter: f } = p;
  const owned = c.owner_id === session.user.id;
  const base = `/app/collections/${c.id}`;
  const filterQs = (extra: Record<string, string | undefined>) => qs({ status: f.status, tag: f.tag, ...extra });
  return (
    <Layout title={c.name} session={session} active="overview">
      <ErrorSummary errors={p.errors} labels={LABELS} />
      <PageHead
        title={c.name}
        lead={
          <>
            <span class="mono">{c.slug}</span> · {c.is_public ? 'public' : 'private'} · {owned ? 'yours' : 'subscribed (read only)'}
          </>
        }
      >
        <div class="form-row">
          <a class="btn" href={`/app/search${qs({ collection: c.slug })}`}>
            Search it
          </a>
          {owned ? (
            <>
              <a class="btn" href={`${base}/edit`}>
                Edit
              </a>
              <a class="btn danger" href={`${base}/delete`}>
                Delete
              </a>
            </>
          ) : (
            <form method="post" action={`/app/catalogue/${c.slug}/unsubscribe`} class="inline-form">
              <Csrf token={session.csrfToken} />
              <input type="hidden" name="from" value="collection" />
              <button type="submit" class="btn danger">
                Unsubscribe
              </button>
            </form>
          )}
        </div>
      </PageHead>
      {p.done && DONE[p.done] ? <Notice tone="info">{DONE[p.done]}</Notice> : null}
      <div class="card">
        {c.description ? <p>{c.description}</p> : <p class="muted">No description.</p>}
        <dl class="facts">
          <dt>Documents</dt>
          <dd>
            {count(c.document_count)} ({count(p.counts.indexed)} indexed, {count(p.counts.pending)} pending, {count(p.counts.failed)}{' '}
            failed)
          </dd>
          <dt>Chunks</dt>
          <dd>{count(c.total_chunks)}</dd>
          <dt>Language</dt>
          <dd>
            {p.language} <span class="muted">({p.language === 'simple' ? 'no stemming' : 'stemming and stop words for text search'})</span>
          </dd>
          <dt>Created</dt>
          <dd>{dateTime(c.created_at)}</dd>
          <dt>Visibility</dt>
          <dd>
            {c.is_public ? <Badge tone="accent">public</Badge> : <Badge tone="neutral">private</Badge>}{' '}
            {owned ? (
              <form method="post" action={`${base}/visibility`} class="inline-form">
                <Csrf token={session.csrfToken} />
                <input type="hidden" name="is_public" value={c.is_public ? 'false' : 'true'} />
                <button type="submit" class="btn small">
                  {c.is_public ? 'Make private' : 'Make public'}
                </button>
              </form>
            ) : null}
          </dd>
        </dl>
      </div>
      {owned ? <AddDocuments p={p} /> : null}
      <section class="section" aria-labelledby="documents-title" id="documents">
        <div class="section-head">
          <h2 id="documents-title">Documents</h2>
          <DocumentFilters action={`${base}#documents`} status={f.status} tag={f.tag} tagOptions={p.tagOptions} />
        </div>
        <DocumentsTable docs={p.docs} showCollection={false} tagHref={(t) => `${base}${filterQs({ tag: t })}#documents`} />
        <nav class="pager" aria-label="Documents pages">
          {f.cursor ? <a href={`${base}${filterQs({})}#documents`}>← First page</a> : <span />}
          {p.next ? <a href={`${base}${filterQs({ cursor: p.next })}#documents`}>Next page →</a> : null}
        </nav>
      </section>
    </Layout>
  );
};

export function registerCollectionPage(web: Hono<WebEnv>, deps: AppDeps): void {
  const show = async (c: WebContext, forms: AddForms, errors: FormErrors, status = 200) => {
    const caller = c.get('webCaller');
    const col = await getVisibleCollection(deps.sql, caller, c.req.param('id') ?? '');
    const statusQ = c.req.query('status');
    const filter = {
      status: STATUSES.includes(statusQ as DocumentStatus) ? (statusQ as DocumentStatus) : undefined,
      tag: (c.req.query('tag') ?? '').trim().slice(0, 100) || undefined,
      cursor: c.req.query('cursor') || undefined,
    };
    const [counts, docs, tagOptions] = await Promise.all([
      statusCounts(deps, [col.id]),
      listDocuments(deps, caller, { ...filter, collection: col.slug, limit: PAGE_SIZE }),
      visibleTags(deps, caller, col.slug),
    ]);
    return page(
      c,
      <CollectionPage
        session={c.get('session')!}
        c={col}
        language={col.language ?? deps.config.TEXT_SEARCH_CONFIG}
        counts={counts.get(col.id) ?? NO_COUNTS}
        docs={docs.page}
        next={docs.next}
        tagOptions={tagOptions}
        filter={filter}
        forms={forms}
        errors={errors}
        done={c.req.query('done')}
      />,
      status,
    );
  };

  web.get('/collections/:id', (c) => show(c, emptyForms(), {}));

  // Text and web-page documents: the API's JSON use case, so the same validation and SSRF checks.
  for (const kind of ['text', 'url'] as const) {
    web.post(`/collections/:id/${kind}`, async (c) => {
      const form = c.get('form');
      const forms = emptyForms();
      const title = field(form, 'title');
      const tags = field(form, 'tags');
      const metadata = field(form, 'metadata');
      const input: DocumentInput = { source_type: kind, title: title || undefined, tags };
      if (kind === 'text') {
        input.content = field(form, 'content');
        forms.text = { title, content: input.content, tags, metadata };
      } else {
        input.url = field(form, 'url');
        forms.url = { url: input.url, title, tags, metadata };
      }
      try {
        input.metadata = parseMetadataText(metadata);
        const d = await createDocument(deps, c.get('webCaller'), c.req.param('id'), input);
        return c.redirect(`/app/documents/${d.id}?done=added`, 303);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        if (err.code === 'COLLECTION_NOT_FOUND') throw err;
        const ids = kind === 'text' ? TEXT_IDS : URL_IDS;
        return show(c, forms, errorsFromFields(err.message, oneMetadataField(err.fields), ids), err.status);
      }
    });
  }
}
