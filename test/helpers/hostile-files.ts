// Hostile inputs generated at test time, small on the wire and expensive to process: zip bombs
// (office files whose XML inflates hugely), PDFs with many pages, deeply nested JSON. Each is built
// from repeated text so generating it is cheap and deterministic.
import { createHash } from 'node:crypto';
import { crc32, createDeflate, deflateRawSync, deflateSync } from 'node:zlib';

const xmlHead = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const strToU8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

/** A minimal deflated zip (node:zlib is native and fast: 64 MB deflates in well under a second). */
function zip(entries: [string, string | Uint8Array][]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of entries) {
    const data = typeof content === 'string' ? strToU8(content) : content;
    const packed = deflateRawSync(data, { level: 9 });
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(0x5800, 12); // DOS date 2024-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(8, 10);
    dir.writeUInt16LE(0x5800, 14);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(packed.length, 20);
    dir.writeUInt32LE(data.length, 24);
    dir.writeUInt16LE(nameBytes.length, 28);
    dir.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    central.push(dir, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const dirSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...central, end]);
}

/** `count` copies of `unit`, as UTF-8 bytes, without building a JS string of the full size. */
function repeatBytes(head: string, unit: string, count: number, tail: string): Uint8Array {
  const h = strToU8(head);
  const u = strToU8(unit);
  const t = strToU8(tail);
  const out = new Uint8Array(h.length + u.length * count + t.length);
  out.set(h, 0);
  out.set(u, h.length);
  // Doubling copies: log2(count) memcpy calls.
  let filled = u.length;
  const total = u.length * count;
  while (filled < total) {
    const n = Math.min(filled, total - filled);
    out.copyWithin(h.length + filled, h.length, h.length + n);
    filled += n;
  }
  out.set(t, h.length + total);
  return out;
}

/**
 * A Word file whose word/document.xml inflates to about `xmlBytes` of paragraphs (each a separate
 * XML element, so parsing it also builds a large DOM). A 64 MB document compresses to ~100 KB.
 */
export function docxBomb(xmlBytes: number, word = 'bomb'): Buffer {
  const unit = `<w:p><w:r><w:t>${word}</w:t></w:r></w:p>`;
  const xml = repeatBytes(
    `${xmlHead}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`,
    unit,
    Math.ceil(xmlBytes / unit.length),
    '</w:body></w:document>',
  );
  return zip([
    [
      '[Content_Types].xml',
      `${xmlHead}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    ],
    [
      '_rels/.rels',
      `${xmlHead}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    ],
    ['word/document.xml', xml],
  ]);
}

/** An Excel file whose only sheet inflates to about `xmlBytes` of one-cell rows holding inline strings. */
export function xlsxBomb(xmlBytes: number): Buffer {
  const unit = '<row><c t="inlineStr"><is><t>bomb</t></is></c></row>';
  const sheet = repeatBytes(
    `${xmlHead}<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`,
    unit,
    Math.ceil(xmlBytes / unit.length),
    '</sheetData></worksheet>',
  );
  return zip([
    [
      '[Content_Types].xml',
      `${xmlHead}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    ],
    [
      '_rels/.rels',
      `${xmlHead}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `${xmlHead}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `${xmlHead}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ],
    ['xl/worksheets/sheet1.xml', sheet],
  ]);
}

/**
 * A valid PDF with `pages` pages, each showing one line of text in a standard font (no embedded
 * font): about 200 bytes a page, so 20,000 pages is ~4 MB.
 */
export function manyPagePdf(pages: number, line = (i: number) => `Page ${i} of the long report`): Buffer {
  const parts: string[] = ['%PDF-1.4\n'];
  const offsets: number[] = [];
  let size = parts[0]!.length;
  const add = (num: number, body: string) => {
    offsets[num] = size;
    const s = `${num} 0 obj\n${body}\nendobj\n`;
    parts.push(s);
    size += Buffer.byteLength(s, 'latin1');
  };
  const pageObj = (i: number) => 4 + 2 * i;
  add(1, '<< /Type /Catalog /Pages 2 0 R >>');
  add(2, `<< /Type /Pages /Count ${pages} /Kids [${Array.from({ length: pages }, (_, i) => `${pageObj(i)} 0 R`).join(' ')}] >>`);
  add(3, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  for (let i = 0; i < pages; i++) {
    const stream = `BT /F1 12 Tf 72 720 Td (${line(i + 1)}) Tj ET`;
    add(
      pageObj(i),
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageObj(i) + 1} 0 R >>`,
    );
    add(pageObj(i) + 1, `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  }
  const count = pageObj(pages);
  const xref = [`xref\n0 ${count}\n`, '0000000000 65535 f \n'];
  for (let n = 1; n < count; n++) xref.push(`${String(offsets[n] ?? 0).padStart(10, '0')} 00000 n \n`);
  parts.push(...xref, `trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`);
  return Buffer.from(parts.join(''), 'latin1');
}

/** JSON nested `depth` arrays deep around one string: parses fine, but a recursive walk overflows the stack. */
export function deepJson(depth: number): Buffer {
  return Buffer.from(`${'['.repeat(depth)}"deep"${']'.repeat(depth)}`);
}

/** Deflates `count` copies of `unit` as a stream (never the whole inflated size in memory); `levels` > 1 deflates the result again. */
export async function deflateRepeated(unit: string, count: number, levels = 1): Promise<Buffer> {
  const chunk = Buffer.from(unit.repeat(Math.max(1, Math.floor((1024 * 1024) / unit.length))));
  const total = unit.length * count;
  const z = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise((resolve) => z.on('end', resolve));
  for (let written = 0; written < total; written += chunk.length) {
    const piece = written + chunk.length <= total ? chunk : chunk.subarray(0, total - written);
    if (!z.write(piece)) await new Promise((resolve) => z.once('drain', resolve));
  }
  z.end();
  await ended;
  let packed = Buffer.concat(out);
  for (let i = 1; i < levels; i++) packed = deflateSync(packed, { level: 9 });
  return packed;
}

/**
 * A one-page PDF whose content stream (FlateDecode, `levels` times) inflates to about
 * `inflatedBytes` of text operators: 400 MB deflates to ~400 KB. `label` adds to the stream's
 * dictionary (e.g. `/Subtype /Image`, a bomb disguised as an image but used as page content).
 */
export async function flateBombPdf(inflatedBytes: number, opts: { levels?: number; label?: string } = {}): Promise<Buffer> {
  const levels = opts.levels ?? 1;
  const unit = 'BT /F1 12 Tf 72 720 Td (bomb) Tj ET\n';
  const packed = await deflateRepeated(unit, Math.ceil(inflatedBytes / unit.length), levels);
  const filter = levels === 1 ? '/FlateDecode' : `[${' /FlateDecode'.repeat(levels)} ]`;
  return onePagePdf(packed, `${filter} ${opts.label ?? ''}`);
}

/**
 * LZW codes (EarlyChange 1, as pdf.js reads them) decoding to at least `decodedBytes` of spaces:
 * one dictionary chain of growing entries (codes 258…4095 in turn), then its longest entry again
 * and again, about 2,600 bytes per 12-bit code.
 */
export function lzwBombBytes(decodedBytes: number): Buffer {
  const out = Buffer.alloc(Math.ceil(((decodedBytes / 3839 + 4096) * 12) / 8) + 8);
  let length = 0;
  let acc = 0;
  let held = 0;
  const put = (code: number, width: number) => {
    acc = (acc << width) | code;
    held += width;
    while (held >= 8) {
      held -= 8;
      out[length++] = (acc >>> held) & 0xff;
    }
    acc &= (1 << held) - 1;
  };
  let width = 9;
  let next = 258;
  let total = 0;
  const emit = (code: number, decoded: number) => {
    put(code, width);
    total += decoded;
    if (code !== 32) {
      next++;
      const n = next + 1;
      if (!(n & (n - 1))) width = Math.min(Math.floor(Math.log2(n)) + 1, 12);
    }
  };
  emit(32, 1);
  for (let code = 258; code < 4096; code++) emit(code, code - 256);
  while (total < decodedBytes) emit(4095, 4095 - 256);
  put(257, width);
  if (held) put(0, 8 - held);
  return out.subarray(0, length);
}

/** A page whose content is an LZWDecode stream of spaces decoding to at least `decodedBytes`. */
export function lzwBombPdf(decodedBytes: number): Buffer {
  return onePagePdf(lzwBombBytes(decodedBytes), '/LZWDecode');
}

/** The encoders of the filters a chain bomb wraps its payload in (the inverse of each decode filter). */
const ENCODERS: Record<string, (data: Buffer) => Buffer> = {
  FlateDecode: (data) => deflateSync(data, { level: 9 }),
  ASCIIHexDecode: (data) => Buffer.from(`${data.toString('hex')}>`, 'latin1'),
  ASCII85Decode: (data) => Buffer.from(`${ascii85(data)}~>`, 'latin1'),
  RunLengthDecode: (data) => {
    const out: number[] = [];
    for (let i = 0; i < data.length; i += 128) {
      const run = data.subarray(i, i + 128);
      out.push(run.length - 1, ...run);
    }
    out.push(128);
    return Buffer.from(out);
  },
};

function ascii85(data: Buffer): string {
  let s = '';
  for (let i = 0; i < data.length; i += 4) {
    const group = Buffer.alloc(4);
    data.copy(group, 0, i, i + 4);
    const n = Math.min(4, data.length - i);
    let v = group.readUInt32BE(0);
    if (v === 0 && n === 4) {
      s += 'z';
      continue;
    }
    const digits: string[] = [];
    for (let k = 0; k < 5; k++) {
      digits.unshift(String.fromCharCode(33 + (v % 85)));
      v = Math.floor(v / 85);
    }
    s += digits.slice(0, n + 1).join('');
  }
  return s;
}

/**
 * A one-page PDF whose content stream has the filter chain `filters` (decode order, as in
 * `/Filter [/FlateDecode /LZWDecode]`): its last filter (LZWDecode or FlateDecode) decodes to at
 * least `decodedBytes`, and each filter before it wraps that in its own encoding. A Flate+LZW chain
 * of 1.5 GB is about 7 KB; an ASCIIHex+LZW chain of 400 MB about 333 KB.
 */
export async function chainBombPdf(filters: string[], decodedBytes: number, opts: { dictionary?: string } = {}): Promise<Buffer> {
  const last = filters[filters.length - 1];
  let data =
    last === 'LZWDecode'
      ? lzwBombBytes(decodedBytes)
      : last === 'FlateDecode'
        ? await deflateRepeated('BT /F1 12 Tf 72 720 Td (bomb) Tj ET\n', Math.ceil(decodedBytes / 36))
        : undefined;
  if (!data) throw new Error(`a chain bomb ends with LZWDecode or FlateDecode, not ${last}`);
  for (const f of filters.slice(0, -1).reverse()) {
    const encode = ENCODERS[f];
    if (!encode) throw new Error(`no encoder for ${f}`);
    data = encode(data);
  }
  return onePagePdf(data, `[${filters.map((f) => ` /${f}`).join('')} ] ${opts.dictionary ?? ''}`);
}

function onePagePdf(packed: Buffer, filter: string): Buffer {
  return pdfWithContentStream(packed, `/Filter ${filter}`);
}

/**
 * A one-page PDF whose page content is `data` with `/Length` and `dictionary` in its stream
 * dictionary; `extra` objects (their bodies) are numbered from 6 and may be referred to from it.
 */
export function pdfWithContentStream(data: Buffer, dictionary: string, extra: string[] = [], trailer = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  const offsets: number[] = [];
  let size = parts[0]!.length;
  const add = (num: number, ...body: Buffer[]) => {
    offsets[num] = size;
    const all = [Buffer.from(`${num} 0 obj\n`, 'latin1'), ...body, Buffer.from('\nendobj\n', 'latin1')];
    parts.push(...all);
    size += all.reduce((n, b) => n + b.length, 0);
  };
  const text = (s: string) => Buffer.from(s, 'latin1');
  add(1, text('<< /Type /Catalog /Pages 2 0 R >>'));
  add(2, text('<< /Type /Pages /Count 1 /Kids [3 0 R] >>'));
  add(3, text('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>'));
  add(4, text('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'));
  add(5, text(`<< /Length ${data.length} ${dictionary} >>\nstream\n`), data, text('\nendstream'));
  for (const [i, body] of extra.entries()) add(6 + i, text(body));
  const count = 6 + extra.length;
  const xref = [`xref\n0 ${count}\n`, '0000000000 65535 f \n'];
  for (let n = 1; n < count; n++) xref.push(`${String(offsets[n]).padStart(10, '0')} 00000 n \n`);
  parts.push(text(`${xref.join('')}trailer\n<< /Size ${count} /Root 1 0 R ${trailer} >>\nstartxref\n${size}\n%%EOF\n`));
  return Buffer.concat(parts);
}

const PASSWORD_PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');
const md5 = (...parts: Buffer[]) => createHash('md5').update(Buffer.concat(parts)).digest();

function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 0xff]!;
  }
  return out;
}

/**
 * A one-page PDF encrypted with the standard security handler (RC4, 40-bit, revision 2) and an
 * empty user password: any reader opens it without asking, and the page content (`data`, with
 * `dictionary`) is stored encrypted, so its bytes say nothing until decrypted.
 */
export function encryptedPdf(data: Buffer, dictionary: string): Buffer {
  const id = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
  const owner = rc4(md5(PASSWORD_PAD).subarray(0, 5), PASSWORD_PAD);
  const permissions = Buffer.alloc(4);
  permissions.writeInt32LE(-4);
  const key = md5(PASSWORD_PAD, owner, permissions, id).subarray(0, 5);
  const user = rc4(key, PASSWORD_PAD);
  // Object 5 (the page content), generation 0: its own key.
  const objectKey = md5(key, Buffer.from([5, 0, 0, 0, 0])).subarray(0, 10);
  return pdfWithContentStream(
    rc4(objectKey, data),
    dictionary,
    [`<< /Filter /Standard /V 1 /R 2 /O <${owner.toString('hex')}> /U <${user.toString('hex')}> /P -4 >>`],
    `/Encrypt 6 0 R /ID [<${id.toString('hex')}> <${id.toString('hex')}>]`,
  );
}
