// A PDF's stream objects as pdf.js reads them (its Lexer and Parser, pdf.worker.mjs core/parser.js),
// as far as the stream pre-count (pdf-streams.ts) needs them: each stream's dictionary, with
// indirect references resolved, and where its data starts. A regular expression over the raw text
// misreads what pdf.js reads: a name written `/LZW#44ecode`, a dictionary longer than the window
// looked at, a string holding `obj` or `stream`, a filter held in another object.
//
// Every `obj` keyword in the file is a place an object may start (the cross-reference table points
// at such places, and pdf.js rebuilds a broken table by finding them): the object is parsed from
// there, and every dictionary followed by `stream` in it is a stream. Reading too much is safe (a
// stream counted that pdf.js never reads); reading too little is what the pre-count must avoid.

import { Cmd, EOF, Lexer, Name, type PdfDict, type PdfValue, Ref, SPECIAL, type Token } from './pdf-lexer.js';

export { Name, Ref, type PdfDict, type PdfValue } from './pdf-lexer.js';

/** A stream object: its dictionary and the offset of its first data byte. */
export interface StreamObject {
  dict: PdfDict;
  start: number;
}

const isCmd = (t: Token, cmd: string) => t instanceof Cmd && t.cmd === cmd;

/** pdf.js's Parser.getObj over one object, collecting every dictionary followed by `stream`. */
class Parser {
  private buf1: Token;
  private buf2: Token;
  constructor(
    private readonly lexer: Lexer,
    private readonly data: Uint8Array,
    private readonly streams: StreamObject[],
  ) {
    this.buf1 = lexer.token();
    this.buf2 = lexer.token();
  }

  private ended(): boolean {
    return this.buf1 === EOF;
  }

  private shift(): void {
    this.buf1 = this.buf2;
    this.buf2 = this.lexer.token();
  }

  object(): PdfValue {
    const buf1 = this.buf1;
    if (buf1 === EOF) throw new Error('end of file');
    this.shift();
    if (buf1 instanceof Cmd && buf1.cmd === '[') {
      const array: PdfValue[] = [];
      while (!isCmd(this.buf1, ']') && this.buf1 !== EOF) array.push(this.object());
      this.shift();
      return array;
    }
    if (buf1 instanceof Cmd && buf1.cmd === '<<') return this.dictionary();
    if (Number.isInteger(buf1) && Number.isInteger(this.buf1) && isCmd(this.buf2, 'R')) {
      const ref = new Ref(buf1 as number, this.buf1 as number);
      this.shift();
      this.shift();
      return ref;
    }
    return buf1;
  }

  private dictionary(): PdfDict {
    const dict: PdfDict = new Map();
    while (!isCmd(this.buf1, '>>') && this.buf1 !== EOF) {
      if (!(this.buf1 instanceof Name)) {
        this.shift();
        continue;
      }
      const key = this.buf1.name;
      this.shift();
      if (this.ended()) break;
      dict.set(key, this.object());
    }
    if (this.buf1 === EOF) return dict;
    if (isCmd(this.buf2, 'stream')) {
      // The data starts after the end of the line `stream` is on (Lexer.skipToNextLine).
      const lexer = this.lexer;
      let ch = lexer.ch;
      while (ch >= 0 && ch !== 0x0a && ch !== 0x0d) ch = lexer.next();
      if (ch === 0x0d && lexer.next() === 0x0a) lexer.next();
      else if (ch === 0x0a) lexer.next();
      const start = lexer.at;
      this.streams.push({ dict, start });
      // Parsing goes on after the data (an object may hold more than one dictionary with a stream).
      const end = indexOf(this.data, ENDSTREAM, start);
      lexer.seek(end < 0 ? this.data.length : end + ENDSTREAM.length);
      this.buf1 = lexer.token();
      this.buf2 = lexer.token();
      return dict;
    }
    this.shift();
    return dict;
  }
}

const ENDSTREAM = Buffer.from('endstream', 'latin1');
const indexOf = (data: Uint8Array, what: Buffer, from: number) =>
  Buffer.from(data.buffer, data.byteOffset, data.byteLength).indexOf(what, from);

/** The objects of one file: its streams, and the value of an indirect reference. */
export class PdfObjects {
  readonly streams: StreamObject[] = [];
  /** Where each object number is defined (`N G obj`), the last definition winning as in an incremental update. */
  private readonly defined = new Map<number, number>();
  private readonly values = new Map<number, PdfValue | undefined>();

  constructor(private readonly data: Uint8Array) {
    const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
    const seen = new Set<string>();
    for (let at = text.indexOf('obj'); at >= 0; at = text.indexOf('obj', at + 3)) {
      const before = text.charCodeAt(at - 1);
      const after = data[at + 3];
      if ((before >= 0x41 && before <= 0x5a) || (before >= 0x61 && before <= 0x7a)) continue; // endobj, …obj
      if (after !== undefined && !SPECIAL[after]) continue;
      const header = /(\d+)\s+\d+\s+$/.exec(text.slice(Math.max(0, at - 32), at));
      if (header) this.defined.set(Number(header[1]), at + 3);
      const found: StreamObject[] = [];
      try {
        new Parser(new Lexer(data, at + 3), data, found).object();
      } catch {
        // Not an object pdf.js could read from here; the streams met before the error still count.
      }
      for (const s of found) {
        const key = `${s.start}:${dictKey(s.dict)}`;
        if (!seen.has(key)) {
          seen.add(key);
          this.streams.push(s);
        }
      }
    }
  }

  /** A dictionary entry as pdf.js's Dict.get gives it: the first key present, a reference fetched once. */
  get(dict: PdfDict, ...keys: string[]): PdfValue | undefined {
    let value: PdfValue | undefined;
    for (const k of keys) if ((value = dict.get(k)) !== undefined) break;
    return value instanceof Ref ? this.fetch(value) : value;
  }

  /** The object an indirect reference names (undefined when the file does not define it in plain text). */
  fetch(ref: Ref): PdfValue | undefined {
    if (this.values.has(ref.num)) return this.values.get(ref.num);
    this.values.set(ref.num, undefined);
    const at = this.defined.get(ref.num);
    let value: PdfValue | undefined;
    if (at !== undefined) {
      try {
        value = new Parser(new Lexer(this.data, at), this.data, []).object();
      } catch {
        value = undefined;
      }
    }
    this.values.set(ref.num, value);
    return value;
  }
}

/** Tells apart two readings of the same stream's dictionary. */
function dictKey(dict: PdfDict): string {
  return JSON.stringify([...dict.entries()], (_k, v: unknown) => (v instanceof Map ? [...v.entries()] : v));
}
