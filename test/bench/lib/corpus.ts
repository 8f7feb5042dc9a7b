// Benchmark corpora: many small documents of the supported types with varied text, plus a few
// large ones. txt/md/csv/json/html/rtf/pdf/docx/odt are generated with fresh text per document;
// pptx/xlsx/odp/ods/epub are copies of the committed samples (their generators are not exported).
import { readFileSync } from 'node:fs';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { samplePath, SAMPLES } from '../../fixtures/samples.js';
import { Prose, rng } from './prose.js';

export interface CorpusFile {
  name: string;
  type: string;
  mediaType: string;
  data: Uint8Array;
  /** characters of text put into the file (before any markup) */
  textChars: number;
  large: boolean;
}

const MEDIA: Record<string, string> = Object.fromEntries(SAMPLES.map((s) => [s.type, s.mediaType]));

/** How many of every 1,000 small documents have each type. */
const MIX: [type: string, perThousand: number][] = [
  ['txt', 180],
  ['md', 180],
  ['html', 100],
  ['csv', 80],
  ['json', 80],
  ['rtf', 50],
  ['pdf', 120],
  ['docx', 100],
  ['odt', 40],
  ['pptx', 14],
  ['xlsx', 14],
  ['odp', 14],
  ['ods', 14],
  ['epub', 14],
];

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const ascii = (s: string) => s.normalize('NFD').replace(/[^\x20-\x7e]/g, '');
const MTIME = new Date('2024-01-01T00:00:00Z');

function zip(entries: [string, string, boolean?][]): Uint8Array {
  const files: Zippable = {};
  for (const [name, text, store] of entries) files[name] = [strToU8(text), { mtime: MTIME, level: store ? 0 : 6 }];
  return zipSync(files, { mtime: MTIME });
}

function docx(title: string, paras: string[]): Uint8Array {
  const xml = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
  const p = (t: string, style?: string) =>
    `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${xmlEscape(t)}</w:t></w:r></w:p>`;
  return zip([
    [
      '[Content_Types].xml',
      `${xml}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    ],
    [
      '_rels/.rels',
      `${xml}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    ],
    [
      'word/document.xml',
      `${xml}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${p(title, 'Heading1')}${paras.map((x) => p(x)).join('')}</w:body></w:document>`,
    ],
  ]);
}

function odt(title: string, paras: string[]): Uint8Array {
  const mime = 'application/vnd.oasis.opendocument.text';
  const xml = '<?xml version="1.0" encoding="UTF-8"?>\n';
  const body = `<office:text><text:h text:outline-level="1">${xmlEscape(title)}</text:h>${paras.map((x) => `<text:p>${xmlEscape(x)}</text:p>`).join('')}</office:text>`;
  return zip([
    ['mimetype', mime, true],
    [
      'META-INF/manifest.xml',
      `${xml}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="${mime}"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
    ],
    [
      'content.xml',
      `${xml}<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body>${body}</office:body></office:document-content>`,
    ],
  ]);
}

/** A text PDF: words wrapped to ~90-character lines, 50 lines a page, Helvetica. */
function pdf(title: string, paras: string[]): Uint8Array {
  const lines: string[] = [ascii(title), ''];
  for (const para of paras) {
    let line = '';
    for (const w of ascii(para).split(/\s+/)) {
      if (line && line.length + w.length + 1 > 90) lines.push(line), (line = '');
      line = line ? `${line} ${w}` : w;
    }
    if (line) lines.push(line);
    lines.push('');
  }
  const pages: string[][] = [];
  for (let i = 0; i < lines.length; i += 50) pages.push(lines.slice(i, i + 50));
  const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${4 + i * 2} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  pages.forEach((pl, i) => {
    const ops = pl.flatMap((l, j) => (l ? [`BT /F1 10 Tf 50 ${760 - j * 14} Td (${esc(l)}) Tj ET`] : [])).join('\n');
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`,
    );
    objects.push(`<< /Length ${Buffer.byteLength(ops, 'latin1')} >>\nstream\n${ops}\nendstream`);
  });
  let out = '%PDF-1.4\n%\xE2\xE3\xCF\xD3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

function rtf(title: string, paras: string[]): string {
  const esc = (s: string) => s.replace(/[\\{}]/g, (c) => `\\${c}`).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0)}?`);
  return `{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times New Roman;}}\n{\\b ${esc(title)}}\\par\n${paras.map((p) => `${esc(p)}\\par\n`).join('')}}\n`;
}

function html(title: string, paras: string[], p: Prose): string {
  return `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${xmlEscape(title)}</title><style>body{margin:0}</style></head>\n<body><nav><a href="/">Home</a> | <a href="/archive">Archive</a></nav>\n<main><article><h1>${xmlEscape(title)}</h1>\n${paras.map((x) => `<p>${xmlEscape(x)}</p>`).join('\n')}\n</article></main><footer>Posted by ${p.name()}</footer></body></html>\n`;
}

function csv(p: Prose, topic: string, chars: number): string {
  const rows = ['id,owner,item,amount,note'];
  let len = 0;
  for (let i = 1; len < chars; i++) {
    const row = `${i},${p.name()},${p.word(topic, 'nouns')},${(p.rand() * 5000).toFixed(2)},"${p.sentence(topic).replace(/"/g, '""')}"`;
    rows.push(row);
    len += row.length;
  }
  return rows.join('\n') + '\n';
}

function json(p: Prose, topic: string, title: string, chars: number): string {
  const items: unknown[] = [];
  let len = 0;
  while (len < chars) {
    const note = p.sentence(topic);
    items.push({ owner: p.name(), subject: p.word(topic, 'nouns'), note, priority: Math.floor(p.rand() * 5) });
    len += note.length + 40;
  }
  return JSON.stringify({ title, topic, items }, null, 2) + '\n';
}

/** One small document of the given type with ~chars characters of text. */
function smallDocument(p: Prose, type: string, i: number, chars: number): CorpusFile {
  const topic = p.topic();
  const title = p.title(topic);
  const paras = p.body(topic, chars);
  const base = `${String(i).padStart(4, '0')}-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const textChars = title.length + paras.reduce((s, x) => s + x.length, 0);
  const file = (data: Uint8Array | string): CorpusFile => ({
    name: `${base}.${type}`,
    type,
    mediaType: MEDIA[type] ?? 'application/octet-stream',
    data: typeof data === 'string' ? Buffer.from(data, 'utf8') : data,
    textChars,
    large: false,
  });
  switch (type) {
    case 'txt':
      return file(`${title}\n\n${paras.join('\n\n')}\n`);
    case 'md':
      return file(
        `# ${title}\n\n${paras.map((x, k) => (k && k % 2 === 0 ? `## ${p.title(topic)}\n\n${x}` : x)).join('\n\n')}\n\n- ${p.sentence(topic)}\n- ${p.sentence(topic)}\n`,
      );
    case 'html':
      return file(html(title, paras, p));
    case 'csv':
      return file(csv(p, topic, chars));
    case 'json':
      return file(json(p, topic, title, chars));
    case 'rtf':
      return file(rtf(title, paras));
    case 'pdf':
      return file(pdf(title, paras));
    case 'docx':
      return file(docx(title, paras));
    case 'odt':
      return file(odt(title, paras));
    default: {
      // Binary copies: same bytes, distinct names; text size is that of the sample.
      const data = readFileSync(samplePath(`sample.${type}`));
      return { name: `${base}.${type}`, type, mediaType: MEDIA[type] ?? 'application/octet-stream', data, textChars: 120, large: false };
    }
  }
}

export interface CorpusOptions {
  smallDocs: number;
  /** sizes of the large documents in KB of text; they are md, txt and pdf in turn */
  largeKb: number[];
  seed?: number;
}

/** The whole corpus in a deterministic, shuffled upload order. */
export function buildCorpus(opts: CorpusOptions): CorpusFile[] {
  const p = new Prose(opts.seed ?? 20240101);
  const types: string[] = [];
  for (const [type, per] of MIX) for (let k = 0; k < Math.round((per * opts.smallDocs) / 1000); k++) types.push(type);
  while (types.length < opts.smallDocs) types.push('txt');
  types.length = opts.smallDocs;
  // Sizes skew small (most notes fit one chunk) with a tail up to ~3.5k characters.
  const files = types.map((t, i) => smallDocument(p, t, i, Math.round(250 + 3300 * p.rand() ** 2)));
  const largeTypes = ['md', 'txt', 'pdf'];
  opts.largeKb.forEach((kb, k) => {
    const type = largeTypes[k % largeTypes.length]!;
    const text = p.longDocument(kb * 1024);
    const data = type === 'pdf' ? pdf(`Large document ${k + 1}`, text.split('\n\n')) : Buffer.from(text, 'utf8');
    files.push({ name: `large-${k + 1}.${type}`, type, mediaType: MEDIA[type]!, data, textChars: text.length, large: true });
  });
  const rand = rng((opts.seed ?? 20240101) + 1);
  for (let i = files.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [files[i], files[j]] = [files[j]!, files[i]!];
  }
  return files;
}
