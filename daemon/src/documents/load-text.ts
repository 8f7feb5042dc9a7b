import type { AppDeps } from '../types.js';
import { PermanentError } from '../errors.js';
import { checkTextLimit, type ExtractedText, type ExtractInput } from '../ingest/extract.js';
import { extractLimits } from '../ingest/extract-limits.js';
import { detectSourceType } from '../ingest/file-types.js';
import { normalizeWhitespace } from '../ingest/normalize.js';
import { FetchTimeoutError, FetchTooLargeError, safeFetch } from '../net/safe-fetch.js';
import { UnsafeUrlError } from '../net/ssrf.js';

export const URL_MAX_BYTES = 20 * 1024 * 1024;
export const URL_TIMEOUT_MS = 20_000;
export const URL_MAX_REDIRECTS = 5;

const extractText = (deps: AppDeps, input: ExtractInput) => deps.extraction.extract(input);

export interface LoadedText extends ExtractedText {
  fetchedBytes?: number;
}

async function readBlob(deps: AppDeps, key: string): Promise<Buffer> {
  return deps.blobs.read(key).catch((err) => {
    if ((err as { code?: string }).code === 'ENOENT') throw new PermanentError('The stored file is missing.');
    throw err;
  });
}

async function fetchUrl(deps: AppDeps, url: string): Promise<LoadedText> {
  let res: Awaited<ReturnType<typeof safeFetch>>;
  try {
    res = await safeFetch(url, {
      allowPrivate: deps.config.ALLOW_PRIVATE_URLS,
      timeoutMs: URL_TIMEOUT_MS,
      maxBytes: URL_MAX_BYTES,
      maxRedirects: URL_MAX_REDIRECTS,
      headers: { accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5' },
    });
  } catch (err) {
    if (err instanceof UnsafeUrlError || (err as { code?: string }).code === 'EUNSAFEADDR')
      throw new PermanentError(`URL refused: ${(err as Error).message}`);
    if (err instanceof FetchTooLargeError) throw new PermanentError(`The page is larger than ${URL_MAX_BYTES / 1024 / 1024} MiB.`);
    if ((err as { code?: string }).code === 'ENOTFOUND') throw new PermanentError(`Host not found: ${new URL(url).hostname}`);
    if (err instanceof FetchTimeoutError) throw err;
    throw err;
  }
  if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429)
    throw new PermanentError(`Fetching the URL failed with HTTP ${res.status}.`);
  if (res.status >= 400) throw new Error(`Fetching the URL failed with HTTP ${res.status}.`);
  const mediaType = String(res.headers['content-type'] ?? 'text/html')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  const name = new URL(res.url).pathname.split('/').pop() ?? '';
  const sourceType =
    mediaType === 'text/html' || mediaType === 'application/xhtml+xml'
      ? 'html'
      : (detectSourceType(name.includes('.') ? name : `page.${mediaType.split('/')[1] ?? 'html'}`, mediaType) ??
        detectSourceType('', mediaType));
  if (!sourceType || sourceType === 'url' || sourceType === 'text')
    throw new PermanentError(`Unsupported content type at the URL: ${mediaType}.`);
  return { ...(await extractText(deps, { sourceType, data: res.body, filename: name })), fetchedBytes: res.body.length };
}

/** The document's full text: stored file, inline text, or fetched URL. */
export async function loadText(
  deps: AppDeps,
  d: { source_type: string; blob_key: string | null; source_url: string | null; content_text: string; original_filename: string },
): Promise<LoadedText> {
  if (d.source_type === 'text') {
    const text = normalizeWhitespace(d.content_text);
    checkTextLimit(text, extractLimits(deps.config));
    return { text };
  }
  if (d.source_type === 'url') {
    if (!d.source_url) throw new PermanentError('The document has no URL.');
    return fetchUrl(deps, d.source_url);
  }
  if (!d.blob_key) throw new PermanentError('The document has no stored file.');
  return extractText(deps, { sourceType: d.source_type, data: await readBlob(deps, d.blob_key), filename: d.original_filename });
}
