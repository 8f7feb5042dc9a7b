// Turns an uploaded file into plain text (plus PDF page offsets) for chunking.
// Plain-text formats are read here; office formats, PDF, RTF and EPUB go through officeparser,
// which on Node 20 works as installed (its pdfjs-dist/file-type declare node>=22 but only use
// APIs that Node 20.16+ has). OCR stays off: tesseract would try to download language data.
import { OfficeParser, type OfficeContentNode, type OfficeParserAST, type SupportedFileType } from 'officeparser';
import { extractHtmlText } from './html-text.js';
import { normalizeWhitespace } from './normalize.js';

export { normalizeWhitespace } from './normalize.js';

/** A failure that retrying cannot fix; the job marks the document failed with this message. */
export class ExtractionError extends Error {
  readonly permanent = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExtractionError';
  }
}

export interface PageSpan {
  page: number;
  /** offset of the page's first character in the returned text */
  start: number;
  /** offset one past the page's last character */
  end: number;
}

export interface ExtractedText {
  text: string;
  pages?: PageSpan[];
}

export interface ExtractInput {
  sourceType: string;
  data: Buffer;
  filename?: string;
}

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

export async function extractText(input: ExtractInput): Promise<ExtractedText> {
  const { sourceType, data } = input;
  let result: ExtractedText;
  if (OFFICE_TYPES.has(sourceType)) result = await extractOffice(sourceType, data);
  else if (sourceType === 'html') result = { text: normalizeWhitespace(extractHtmlText(decodeText(data))) };
  else if (sourceType === 'json') result = { text: normalizeWhitespace(jsonToText(decodeText(data))) };
  else if (['txt', 'md', 'csv', 'text'].includes(sourceType)) result = { text: normalizeWhitespace(decodeText(data)) };
  else throw new ExtractionError(`Unsupported file type "${sourceType}".`);

  if (result.text === '') {
    throw new ExtractionError(
      sourceType === 'pdf'
        ? 'No text found in the PDF. It may contain only scanned images; OCR is not supported.'
        : 'No text found in the file.',
    );
  }
  return result;
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
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) for (const [i, item] of v.entries()) walk(item, path ? `${path}[${i}]` : `[${i}]`);
    else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) walk(item, path ? `${path}.${k}` : k);
    } else if (v !== null) lines.push(path ? `${path}: ${String(v)}` : String(v));
  };
  walk(value, '');
  return lines.join('\n');
}

async function extractOffice(sourceType: string, data: Buffer): Promise<ExtractedText> {
  const label = TYPE_LABEL[sourceType] ?? sourceType;
  if (data.length === 0) throw new ExtractionError(`The ${label} file is empty.`);
  let ast: OfficeParserAST;
  try {
    ast = await OfficeParser.parseOffice(data, {
      fileType: sourceType as SupportedFileType,
      ocr: false,
      extractAttachments: false,
      includeRawContent: false,
      outputErrorToConsole: false,
    });
  } catch (err) {
    throw classifyOfficeError(label, err);
  }
  if (sourceType === 'pdf') return pdfText(ast);
  let text = normalizeWhitespace(renderBlocks(ast.content));
  // Our renderer keeps rows and slides apart; fall back to the library's own if it found nothing.
  if (text === '') text = normalizeWhitespace(ast.toText());
  return { text };
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

/** PDF: one block of text per page, with each page's offsets in the joined text. */
function pdfText(ast: OfficeParserAST): ExtractedText {
  const pages: PageSpan[] = [];
  let text = '';
  ast.content.forEach((node, i) => {
    const pageNo = Number((node.metadata as { pageNumber?: number } | undefined)?.pageNumber ?? i + 1);
    const pageText = normalizeWhitespace(node.text || renderBlocks(node.children ?? []));
    if (pageText !== '' && text !== '') text += '\n\n';
    const start = text.length;
    text += pageText;
    pages.push({ page: pageNo, start, end: text.length });
  });
  return { text, pages };
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
