// Turns an uploaded file into plain text (plus PDF page offsets) for chunking.
// Plain-text formats are read here; PDF straight from pdf.js (pdf-text.ts); office formats, RTF
// and EPUB go through officeparser, which on Node 20 works as installed (its pdfjs-dist/file-type
// declare node>=22 but only use APIs that Node 20.16+ has). OCR stays off: tesseract would try to
// download language data.
import {
  OfficeErrorType,
  OfficeParser,
  type OfficeContentNode,
  type OfficeError,
  type OfficeParserAST,
  type SupportedFileType,
} from 'officeparser';
import { PermanentError } from '../errors.js';
import { extractHtmlText } from './html-text.js';
import { normalizeWhitespace } from './normalize.js';
import { memoiseOfficeModuleLoaders } from './office-modules.js';
import { assertPdfStreamsWithin, PdfUnpackLimitError } from './pdf-streams.js';
import { pdfText, type PageSpan } from './pdf-text.js';

export { normalizeWhitespace } from './normalize.js';

memoiseOfficeModuleLoaders();

/** A failure that retrying cannot fix; the job marks the document failed with this message. */
export class ExtractionError extends PermanentError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExtractionError';
  }
}

export type { PageSpan } from './pdf-text.js';

export interface ExtractedText {
  text: string;
  pages?: PageSpan[];
}

export interface ExtractInput {
  sourceType: string;
  data: Buffer;
  filename?: string;
}

/**
 * Bounds on what one document may cost (settings EXTRACT_MAX_*). Exceeding one is permanent: the
 * same file would exceed it again. An absent limit is not enforced (the parsers' own caps apply).
 */
export interface ExtractLimits {
  maxPdfPages?: number;
  /** total inflated size of the XML parts of a zip-based office file (docx, xlsx, odt…) or of a PDF's FlateDecode streams */
  maxUnpackedBytes?: number;
  /** total inflated size of a PDF's FlateDecode images (the thread's memory bound, EXTRACT_MEMORY_MB) */
  maxImageBytes?: number;
  /** characters of extracted, normalised text */
  maxTextChars?: number;
}

/** Deeper JSON is refused: real data is never this deep, and walking it costs stack. */
export const JSON_MAX_DEPTH = 1000;

const fmt = (n: number) => n.toLocaleString('en-US');
const fmtMb = (bytes: number) => fmt(Math.round((bytes / (1024 * 1024)) * 10) / 10);

const OFFICE_TYPES = new Set<string>(['pdf', 'docx', 'pptx', 'xlsx', 'odt', 'odp', 'ods', 'rtf', 'epub'] satisfies SupportedFileType[]);
const TYPE_LABEL: Record<string, string> = {
  pdf: 'PDF',
  docx: 'Word',
  pptx: 'PowerPoint',
  xlsx: 'Excel',
  odt: 'OpenDocument text',
  odp: 'OpenDocument presentation',
  ods: 'OpenDocument spreadsheet',
  rtf: 'RTF',
  epub: 'EPUB',
};

export async function extractText(input: ExtractInput, limits: ExtractLimits = {}): Promise<ExtractedText> {
  let result: ExtractedText;
  try {
    result = await extractAny(input, limits);
  } catch (err) {
    throw classifyResourceError(err);
  }
  checkTextLimit(result.text, limits);

  if (result.text === '') {
    throw new ExtractionError(
      input.sourceType === 'pdf'
        ? 'No text found in the PDF. It may contain only scanned images; OCR is not supported.'
        : 'No text found in the file.',
    );
  }
  return result;
}

async function extractAny(input: ExtractInput, limits: ExtractLimits): Promise<ExtractedText> {
  const { sourceType, data } = input;
  if (OFFICE_TYPES.has(sourceType)) return extractOffice(sourceType, data, limits);
  if (sourceType === 'html') return { text: normalizeWhitespace(extractHtmlText(decodeText(data))) };
  if (sourceType === 'json') return { text: normalizeWhitespace(jsonToText(decodeText(data))) };
  if (['txt', 'md', 'csv', 'text'].includes(sourceType)) return { text: normalizeWhitespace(decodeText(data)) };
  throw new ExtractionError(`Unsupported file type "${sourceType}".`);
}

/** Refuses text over EXTRACT_MAX_TEXT_CHARS: chunking and embedding cost grows with it. */
export function checkTextLimit(text: string, limits: ExtractLimits): void {
  if (limits.maxTextChars !== undefined && text.length > limits.maxTextChars) {
    throw new ExtractionError(
      `The document's text has ${fmt(text.length)} characters; the limit is ${fmt(limits.maxTextChars)} (EXTRACT_MAX_TEXT_CHARS).`,
    );
  }
}

/**
 * Failures of the input rather than the system: a stack overflow (nesting deeper than any parser
 * copes with) or a string/buffer past V8's maximum length. Retrying would fail the same way.
 */
function classifyResourceError(err: unknown): unknown {
  if (!(err instanceof RangeError)) return err;
  if (/call stack/i.test(err.message))
    return new ExtractionError('The file is nested too deeply to be read (the parser ran out of stack).', { cause: err });
  if (/invalid (string|array) length|allocation failed/i.test(err.message))
    return new ExtractionError(`The file expands to more text than can be held in memory (${err.message}).`, { cause: err });
  return err;
}

/** UTF-8 (BOM stripped) or UTF-16 with BOM; bytes that are not valid UTF-8 are read as Windows-1252. */
export function decodeText(data: Uint8Array): string {
  if (data[0] === 0xff && data[1] === 0xfe) return new TextDecoder('utf-16le').decode(data.subarray(2));
  if (data[0] === 0xfe && data[1] === 0xff) return new TextDecoder('utf-16be').decode(data.subarray(2));
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(data);
  } catch {
    return new TextDecoder('windows-1252').decode(data);
  }
}

/** Keys and scalar values, one "path: value" line each, so both are searchable. */
function jsonToText(source: string): string {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (err) {
    throw new ExtractionError(`The JSON file is corrupt and could not be parsed: ${(err as Error).message}`, { cause: err });
  }
  const lines: string[] = [];
  // JSON.parse itself is iterative, so any depth parses; the walk below is recursive.
  const walk = (v: unknown, path: string, depth: number): void => {
    if (depth > JSON_MAX_DEPTH && v !== null && typeof v === 'object')
      throw new ExtractionError(`The JSON file is nested more than ${fmt(JSON_MAX_DEPTH)} levels deep and cannot be indexed.`);
    if (Array.isArray(v)) for (const [i, item] of v.entries()) walk(item, path ? `${path}[${i}]` : `[${i}]`, depth + 1);
    else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) walk(item, path ? `${path}.${k}` : k, depth + 1);
    } else if (v !== null) lines.push(path ? `${path}: ${String(v)}` : String(v));
  };
  walk(value, '', 1);
  return lines.join('\n');
}

async function extractOffice(sourceType: string, data: Buffer, limits: ExtractLimits): Promise<ExtractedText> {
  const label = TYPE_LABEL[sourceType] ?? sourceType;
  if (data.length === 0) throw new ExtractionError(`The ${label} file is empty.`);
  if (sourceType === 'pdf') {
    await checkPdfStreams(data, limits);
    try {
      return await pdfText(data, {
        maxPages: limits.maxPdfPages,
        onTooManyPages: (pages) =>
          new ExtractionError(`The PDF has ${fmt(pages)} pages; the limit is ${fmt(limits.maxPdfPages!)} (EXTRACT_MAX_PDF_PAGES).`),
        decoding: {
          maxStreamBytes: limits.maxUnpackedBytes ?? Number.POSITIVE_INFINITY,
          maxLiveBytes: limits.maxImageBytes ?? Number.POSITIVE_INFINITY,
        },
        onDecodeLimit: (limit) => pdfUnpackError(limits, limit === 'live' ? 'held' : 'content'),
      });
    } catch (err) {
      if (err instanceof ExtractionError || err instanceof RangeError) throw err;
      throw classifyOfficeError(label, err);
    }
  }
  let ast: OfficeParserAST;
  try {
    ast = await OfficeParser.parseOffice(data, {
      fileType: sourceType as SupportedFileType,
      ocr: false,
      extractAttachments: false,
      includeRawContent: false,
      outputErrorToConsole: false,
      ...(limits.maxUnpackedBytes !== undefined ? { decompressionLimits: { maxUncompressedBytes: limits.maxUnpackedBytes } } : {}),
    });
  } catch (err) {
    if ((err as OfficeError).officeIssue?.code === OfficeErrorType.ZIP_SIZE_LIMIT_EXCEEDED && limits.maxUnpackedBytes !== undefined) {
      const mb = fmtMb(limits.maxUnpackedBytes);
      throw new ExtractionError(`The ${label} file unpacks to more than ${mb} MiB; the limit is ${mb} MiB (EXTRACT_MAX_UNPACKED_MB).`, {
        cause: err,
      });
    }
    throw classifyOfficeError(label, err);
  }
  let text = normalizeWhitespace(renderBlocks(ast.content));
  // Our renderer keeps rows and slides apart; fall back to the library's own if it found nothing.
  if (text === '') text = normalizeWhitespace(ast.toText());
  return { text };
}

/** A PDF whose FlateDecode streams inflate past the limits fails before pdf.js inflates them into memory. */
async function checkPdfStreams(data: Buffer, limits: ExtractLimits): Promise<void> {
  if (limits.maxUnpackedBytes === undefined && limits.maxImageBytes === undefined) return;
  try {
    await assertPdfStreamsWithin(
      data,
      limits.maxUnpackedBytes ?? Number.POSITIVE_INFINITY,
      limits.maxImageBytes ?? Number.POSITIVE_INFINITY,
    );
  } catch (err) {
    if (!(err instanceof PdfUnpackLimitError)) throw err;
    throw pdfUnpackError(limits, err.images ? 'images' : 'content', err);
  }
}

/**
 * Past EXTRACT_MAX_UNPACKED_MB (`content`: the file's streams, or one stream as pdf.js decodes it)
 * or EXTRACT_MEMORY_MB (`images`: the image streams the pre-count found; `held`: the decoded
 * streams pdf.js holds at once).
 */
function pdfUnpackError(limits: ExtractLimits, kind: 'content' | 'images' | 'held', cause?: unknown): ExtractionError {
  const mb = fmtMb((kind === 'content' ? limits.maxUnpackedBytes : limits.maxImageBytes)!);
  const what = {
    content: `The PDF file unpacks to more than ${mb} MiB`,
    images: `The PDF file's images unpack to more than ${mb} MiB`,
    held: `The PDF file's streams need more than ${mb} MiB of memory at once`,
  }[kind];
  const setting = kind === 'content' ? 'EXTRACT_MAX_UNPACKED_MB' : 'EXTRACT_MEMORY_MB';
  return new ExtractionError(`${what}; the limit is ${mb} MiB (${setting}).`, cause === undefined ? undefined : { cause });
}

function classifyOfficeError(label: string, err: unknown): ExtractionError {
  const raw = err instanceof Error ? err.message : String(err);
  const message = raw.replace(/^\[OfficeParser\]:\s*/, '').trim();
  const name = err instanceof Error ? err.name : '';
  if (/password/i.test(message) || name === 'PasswordException') {
    return new ExtractionError(`The ${label} file is encrypted or password-protected and cannot be read.`, { cause: err });
  }
  return new ExtractionError(`The ${label} file is corrupt or unreadable: ${message || 'unknown parser error'}`, { cause: err });
}

// Node types whose children are separate blocks (joined by newlines); others are inline runs.
const BLOCK_TYPES = new Set([
  'paragraph',
  'heading',
  'table',
  'list',
  'row',
  'slide',
  'note',
  'sheet',
  'page',
  'code',
  'header',
  'footer',
  'admonition',
  'definitionList',
  'definitionTerm',
  'definitionDescription',
  'comment',
  'chart',
]);
const SECTION_TYPES = new Set(['slide', 'sheet', 'page']);

function nodeText(node: OfficeContentNode): string {
  const children = node.children ?? [];
  if (node.type === 'break') return '\n';
  if (node.type === 'image') return ((node.metadata as { altText?: string } | undefined)?.altText ?? node.text ?? '').trim();
  if (children.length === 0) return node.text ?? '';
  if (node.type === 'row') {
    // Cells side by side keep a spreadsheet/table row readable as one line.
    return children
      .map((c) => nodeText(c).replace(/\s+/g, ' ').trim())
      .filter(Boolean)
      .join(' | ');
  }
  const sep = children.some((c) => BLOCK_TYPES.has(c.type)) ? '\n' : '';
  return children
    .map(nodeText)
    .filter((t) => t !== '')
    .join(sep);
}

/** Top-level blocks one per line; slides/sheets/pages separated by a blank line. */
function renderBlocks(nodes: OfficeContentNode[]): string {
  const parts = nodes.map((n) => ({ text: nodeText(n).trim(), section: SECTION_TYPES.has(n.type) })).filter((p) => p.text !== '');
  return parts.map((p, i) => (i === 0 ? '' : p.section || parts[i - 1]?.section ? '\n\n' : '\n') + p.text).join('');
}
