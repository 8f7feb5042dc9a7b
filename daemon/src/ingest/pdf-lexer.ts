// pdf.js's Lexer (pdf.worker.mjs core/parser.js), as pdf-objects.ts needs it: the same tokens
// from the same bytes (names with #xx escapes, strings with nested parentheses and escapes, hex
// strings, numbers as pdf.js reads them, comments skipped).

export class Name {
  constructor(readonly name: string) {}
}
export class Ref {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}
export class Cmd {
  constructor(readonly cmd: string) {}
}
export type PdfValue = number | boolean | null | string | Name | Ref | Cmd | PdfValue[] | PdfDict;
export type PdfDict = Map<string, PdfValue>;

export const EOF = Symbol('EOF');
export type Token = PdfValue | typeof EOF;

/** pdf.js's specialChars: 1 white space, 2 delimiter. */
export const SPECIAL = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) SPECIAL[c] = 1;
for (const c of '%()/<>[]{}') SPECIAL[c.charCodeAt(0)] = 2;

/** Tokens an object may span at most: a real stream dictionary has a few dozen. */
const MAX_TOKENS = 20_000;

const hexDigit = (ch: number) =>
  ch >= 0x30 && ch <= 0x39 ? ch & 0x0f : (ch >= 0x41 && ch <= 0x46) || (ch >= 0x61 && ch <= 0x66) ? (ch & 0x0f) + 9 : -1;

export class Lexer {
  ch = -1;
  tokens = 0;
  constructor(
    private readonly data: Uint8Array,
    public pos: number,
  ) {
    this.next();
  }

  next(): number {
    this.ch = this.pos < this.data.length ? this.data[this.pos++]! : -1;
    return this.ch;
  }

  /** Where the current character is. */
  get at(): number {
    return this.ch < 0 ? this.data.length : this.pos - 1;
  }

  seek(at: number): void {
    this.pos = at;
    this.next();
  }

  token(): Token {
    if (++this.tokens > MAX_TOKENS) throw new Error('object too long');
    let ch = this.ch;
    let comment = false;
    for (;;) {
      if (ch < 0) return EOF;
      if (comment) {
        if (ch === 0x0a || ch === 0x0d) comment = false;
      } else if (ch === 0x25) comment = true;
      else if (SPECIAL[ch] !== 1) break;
      ch = this.next();
    }
    if ((ch >= 0x30 && ch <= 0x39) || ch === 0x2b || ch === 0x2d || ch === 0x2e) return this.number();
    switch (ch) {
      case 0x28:
        return this.string();
      case 0x2f:
        return this.name();
      case 0x3c:
        if (this.next() === 0x3c) {
          this.next();
          return new Cmd('<<');
        }
        return this.hexString();
      case 0x3e:
        if (this.next() === 0x3e) {
          this.next();
          return new Cmd('>>');
        }
        return new Cmd('>');
      case 0x5b:
      case 0x5d:
      case 0x7b:
      case 0x7d:
        this.next();
        return new Cmd(String.fromCharCode(ch));
      case 0x29:
        throw new Error('illegal character');
    }
    let s = String.fromCharCode(ch);
    if (ch < 0x20 || ch > 0x7f) {
      const peek = this.data[this.pos] ?? -1;
      if (peek >= 0x20 && peek <= 0x7f) {
        this.next();
        return new Cmd(s);
      }
    }
    while ((ch = this.next()) >= 0 && !SPECIAL[ch]) {
      if (s.length === 128) throw new Error('command too long');
      s += String.fromCharCode(ch);
    }
    return s === 'true' ? true : s === 'false' ? false : s === 'null' ? null : new Cmd(s);
  }

  private number(): number {
    let ch = this.ch;
    let sign = 1;
    let divideBy = 0;
    if (ch === 0x2d) {
      sign = -1;
      if ((ch = this.next()) === 0x2d) ch = this.next();
    } else if (ch === 0x2b) ch = this.next();
    while (ch === 0x0a || ch === 0x0d) ch = this.next();
    if (ch === 0x2e) {
      divideBy = 10;
      ch = this.next();
    }
    if (ch < 0x30 || ch > 0x39) {
      if (SPECIAL[ch] === 1 || ch === 0x28 || ch === 0x3c || ch < 0) return 0;
      throw new Error('invalid number');
    }
    let value = ch - 0x30;
    while ((ch = this.next()) >= 0) {
      if (ch >= 0x30 && ch <= 0x39) {
        if (divideBy !== 0) divideBy *= 10;
        value = value * 10 + (ch - 0x30);
      } else if (ch === 0x2e) {
        if (divideBy === 0) divideBy = 1;
        else break;
      } else if (ch !== 0x2d) break;
    }
    return sign * (divideBy ? value / divideBy : value);
  }

  /** A literal string; its content only matters as a value (escapes are kept raw). */
  private string(): string {
    let depth = 1;
    let s = '';
    for (let ch = this.next(); ; ch = this.next()) {
      if (ch < 0) return s;
      if (ch === 0x5c) {
        if (this.next() < 0) return s;
        s += String.fromCharCode(this.ch);
        continue;
      }
      if (ch === 0x28) depth++;
      else if (ch === 0x29 && --depth === 0) {
        this.next();
        return s;
      }
      s += String.fromCharCode(ch);
    }
  }

  private name(): Name {
    let s = '';
    let ch: number;
    while ((ch = this.next()) >= 0 && !SPECIAL[ch]) {
      if (ch !== 0x23) {
        s += String.fromCharCode(ch);
        continue;
      }
      ch = this.next();
      if (SPECIAL[ch] || ch < 0) {
        s += '#';
        break;
      }
      const x = hexDigit(ch);
      if (x === -1) {
        s += `#${String.fromCharCode(ch)}`;
        continue;
      }
      const previous = ch;
      ch = this.next();
      const x2 = hexDigit(ch);
      if (x2 === -1) {
        s += `#${String.fromCharCode(previous)}`;
        if (SPECIAL[ch] || ch < 0) break;
        s += String.fromCharCode(ch);
        continue;
      }
      s += String.fromCharCode((x << 4) | x2);
    }
    return new Name(s);
  }

  private hexString(): string {
    let s = '';
    let first = -1;
    for (let ch = this.ch; ; ) {
      if (ch < 0) break;
      if (ch === 0x3e) {
        this.next();
        break;
      }
      if (SPECIAL[ch] !== 1) {
        const d = hexDigit(ch);
        if (d !== -1) {
          if (first === -1) first = d;
          else {
            s += String.fromCharCode((first << 4) | d);
            first = -1;
          }
        }
      }
      ch = this.next();
    }
    return first === -1 ? s : s + String.fromCharCode(first << 4);
  }
}
