import type { FC } from 'hono/jsx';
import { MetadataField } from './metadata-field.js';

/**
 * A file upload that works without the page script (a plain multipart form; its CSRF token rides
 * in the action URL because the streamed body is never parsed before the upload itself) and, with
 * it, takes dropped files and sends them in one request with a progress bar per file. Either way
 * the body streams into the API's upload use case, so limits and skip reasons are the API's.
 */
export const UploadForm: FC<{ action: string; csrf: string; multiple: boolean; title: string; idPrefix: string }> = ({
  action,
  csrf,
  multiple,
  title,
  idPrefix,
}) => (
  <form
    method="post"
    enctype="multipart/form-data"
    action={`${action}?_csrf=${encodeURIComponent(csrf)}`}
    class="card upload"
    data-upload={action}
    data-csrf={csrf}
    data-multiple={multiple ? 'true' : 'false'}
    aria-labelledby={`${idPrefix}-title`}
  >
    <h3 id={`${idPrefix}-title`}>{title}</h3>
    <div class="dropzone" data-dropzone>
      <svg viewBox="0 0 24 24" width="28" height="28" fill="none" stroke="currentColor" stroke-width="1.8" aria-hidden="true">
        <path d="M12 16V4M7 9l5-5 5 5M4 16v3a1 1 0 0 0 1 1h14a1 1 0 0 0 1-1v-3" stroke-linecap="round" stroke-linejoin="round" />
      </svg>
      <p>
        <strong>Drop {multiple ? 'files' : 'a file'} here</strong> or choose {multiple ? 'them' : 'one'}:
      </p>
      <label for={`${idPrefix}-files`} class="visually-hidden">
        {multiple ? 'Files' : 'File'}
      </label>
      <input id={`${idPrefix}-files`} type="file" name={multiple ? 'files' : 'file'} multiple={multiple} required />
      <p class="hint">
        PDF, Word, PowerPoint, Excel, OpenDocument, EPUB, RTF, HTML, Markdown, text, CSV or JSON; up to 50 MiB per file
        {multiple ? ', 100 files per upload' : ''}.
      </p>
    </div>
    {multiple ? (
      <div class="field">
        <label for={`${idPrefix}-tags`}>Tags</label>
        <input
          id={`${idPrefix}-tags`}
          name="tags"
          type="text"
          maxlength={5000}
          autocomplete="off"
          aria-describedby={`${idPrefix}-tags-hint`}
        />
        <span class="hint" id={`${idPrefix}-tags-hint`}>
          Comma-separated, applied to every file; optional.
        </span>
      </div>
    ) : null}
    {multiple ? <MetadataField id={`${idPrefix}-metadata`} value="" errors={{}} /> : null}
    <button type="submit" class="btn primary">
      {multiple ? 'Upload' : 'Upload replacement'}
    </button>
    <p class="upload-summary" data-upload-summary role="status" aria-live="polite"></p>
    <ul class="upload-list" data-upload-list aria-label="Upload progress"></ul>
  </form>
);
