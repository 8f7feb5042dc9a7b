import type { FC } from 'hono/jsx';
import type { DocumentRow, DocumentStatus } from '../documents/queries.js';
import { bytes, count, dateTime } from './format.js';
import { ColumnHeads, StatusBadge } from './layout.js';

export const STATUSES: DocumentStatus[] = ['indexed', 'pending', 'failed'];

export function qs(params: Record<string, string | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) u.set(k, v);
  const s = u.toString();
  return s ? `?${s}` : '';
}

export const Tags: FC<{ tags: string[]; href?: (tag: string) => string }> = ({ tags, href }) =>
  tags.length ? (
    <span class="chips">
      {tags.map((t) =>
        href ? (
          <a class="chip tag" href={href(t)}>
            {t}
          </a>
        ) : (
          <span class="chip tag">{t}</span>
        ),
      )}
    </span>
  ) : null;

/**
 * Documents, newest first. Below 720 px each row becomes a card (labels from data-label). Rows of
 * pending documents carry data-live: the page script polls their status and updates the badge.
 */
export const DocumentsTable: FC<{ docs: DocumentRow[]; showCollection?: boolean; tagHref?: (tag: string) => string }> = ({
  docs,
  showCollection = true,
  tagHref,
}) => (
  <div class="table-wrap">
    <table class="stack" data-live-table>
      <caption class="visually-hidden">Documents, newest first</caption>
      <ColumnHeads cols={['Document', showCollection && 'Collection', 'Status', ['Chunks', 'num'], ['Size', 'num'], 'Added']} actions />
      <tbody>
        {docs.length === 0 ? (
          <tr>
            <td colspan={showCollection ? 7 : 6} class="empty">
              No documents here yet.
            </td>
          </tr>
        ) : null}
        {docs.map((d) => (
          <tr data-doc-id={d.id} data-live={d.status === 'pending' ? '' : undefined}>
            <td data-label="Document" class="doc-cell">
              <a href={`/app/documents/${d.id}`} class="doc-title">
                {d.title || '(untitled)'}
              </a>
              {d.original_filename && d.original_filename !== d.title ? <div class="muted mono">{d.original_filename}</div> : null}
              <Tags tags={d.tags} href={tagHref} />
              <div class="error-detail" data-live-error hidden={!(d.status === 'failed' && d.error_message)}>
                <span class="visually-hidden">Error: </span>
                <span data-live-error-text>{d.status === 'failed' ? d.error_message : ''}</span>
              </div>
            </td>
            {showCollection ? <td data-label="Collection">{d.collection_name}</td> : null}
            <td data-label="Status" data-live-status>
              <StatusBadge status={d.status} />
            </td>
            <td data-label="Chunks" class="num" data-live-chunks>
              {count(d.chunks_count)}
            </td>
            <td data-label="Size" class="num">
              {d.file_size ? bytes(d.file_size) : '—'}
            </td>
            <td data-label="Added" class="muted">
              {dateTime(d.created_at)}
            </td>
            <td class="actions">
              {d.blob_key ? (
                <a class="btn small" href={`/app/documents/${d.id}/download`}>
                  Download<span class="visually-hidden"> {d.original_filename || d.title}</span>
                </a>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);

/** Status, tag (and optionally collection) filter of a documents list, as a GET form. */
export const DocumentFilters: FC<{
  action: string;
  status?: string;
  tag?: string;
  collection?: string;
  collections?: { slug: string; name: string }[];
  tagOptions: string[];
}> = (p) => (
  <form method="get" action={p.action} class="form-row filters" aria-label="Filter documents">
    {p.collections ? (
      <div class="field">
        <label for="doc-collection">Collection</label>
        <select id="doc-collection" name="collection">
          <option value="">All</option>
          {p.collections.map((c) => (
            <option value={c.slug} selected={c.slug === p.collection}>
              {c.name}
            </option>
          ))}
        </select>
      </div>
    ) : null}
    <div class="field">
      <label for="doc-status">Status</label>
      <select id="doc-status" name="status">
        <option value="">Any</option>
        {STATUSES.map((s) => (
          <option value={s} selected={s === p.status}>
            {s}
          </option>
        ))}
      </select>
    </div>
    <div class="field">
      <label for="doc-tag">Tag</label>
      <input id="doc-tag" name="tag" type="text" value={p.tag ?? ''} list="doc-tag-options" maxlength={100} autocomplete="off" />
      <datalist id="doc-tag-options">
        {p.tagOptions.map((t) => (
          <option value={t} />
        ))}
      </datalist>
    </div>
    <button type="submit" class="btn">
      Filter
    </button>
  </form>
);
