// `--where 'year >= 2024 and dept = legal'`: a readable form of the service's filter JSON.
//   expr   := or;  or := and ("or" and)*;  and := unary ("and" unary)*
//   unary  := "not" unary | "(" expr ")" | cond
//   cond   := field (= | != | > | >= | < | <=) value | field [not] in (value, …)
//           | field [not] exists | field prefix value
//   value  := 'quoted' | "quoted" | number | true | false | bare word (a string: legal, 2024-01-01)
// Keywords are case-insensitive. The service checks fields and operators (400 names the clause).
import type { DocumentMetadata, Filter, FilterValue } from '@docsift/sdk';
import { UsageError } from './errors.js';

type Token = { t: 'word' | 'str' | 'op' | 'punct'; v: string; at: number; raw: string };

/** Spellings from other languages, refused with the expression rewritten the --where way. */
const MISTAKES: { re: RegExp; use: string; why: string }[] = [
  { re: /^={2,3}/, use: '=', why: 'Equality is one "=".' },
  { re: /^&&/, use: 'and', why: 'Conditions are joined with "and".' },
  { re: /^\|\|/, use: 'or', why: 'Alternatives are joined with "or".' },
  { re: /^!(?!=)/, use: 'not ', why: 'A condition is negated with "not".' },
];

function mistake(src: string, at: number): void {
  for (const m of MISTAKES) {
    const found = m.re.exec(src.slice(at));
    if (!found) continue;
    const fixed = `${src.slice(0, at)}${m.use}${src.slice(at + found[0].length)}`.replace(/\s+/g, ' ').trim();
    throw new UsageError(`--where: "${found[0]}" is not an operator.`, `${m.why} Write: ${fixed}`);
  }
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  const re = /\s*(?:(>=|<=|!=|=|>|<)|([(),])|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([^\s()=!<>,'"]+))/y;
  let i = 0;
  while (i < src.length) {
    if (!src.slice(i).trim()) break;
    const at = i + (src.slice(i).length - src.slice(i).trimStart().length);
    mistake(src, at);
    re.lastIndex = i;
    const m = re.exec(src);
    if (!m) throw new UsageError(`--where: cannot read "${src.slice(i).trim()}".`);
    i = re.lastIndex;
    const raw = m[0].trim();
    if (m[1]) out.push({ t: 'op', v: m[1], at, raw });
    else if (m[2]) out.push({ t: 'punct', v: m[2], at, raw });
    else if (m[3] !== undefined || m[4] !== undefined) out.push({ t: 'str', v: (m[3] ?? m[4]!).replace(/\\(.)/g, '$1'), at, raw });
    else out.push({ t: 'word', v: m[5]!, at, raw });
  }
  return out;
}

const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** A literal: quoted text stays a string; bare numbers and true/false are typed. */
export function literal(tok: { t: string; v: string }): FilterValue {
  if (tok.t === 'str') return tok.v;
  if (NUMBER.test(tok.v)) return Number(tok.v);
  if (tok.v === 'true' || tok.v === 'false') return tok.v === 'true';
  return tok.v;
}

const OPS: Record<string, string> = { '=': 'eq', '!=': 'ne', '>': 'gt', '>=': 'gte', '<': 'lt', '<=': 'lte' };

/**
 * `notes` collects warnings that do not stop the filter: a quoted number in a comparison stays text
 * (it never equals the number 2024, and "10" sorts before "9"), which is right for text metadata
 * and a surprise for numbers.
 */
export function parseWhere(src: string, notes: string[] = []): Filter {
  const toks = tokenize(src);
  let p = 0;
  const peek = () => toks[p];
  const kw = (w: string) => peek()?.t === 'word' && peek()!.v.toLowerCase() === w;
  const fail = (what: string): never => {
    const tok = peek();
    throw new UsageError(`--where: expected ${what}${tok ? ` at "${src.slice(tok.at).trim()}"` : ' at the end'}.`);
  };
  const value = (): FilterValue => {
    const tok = peek();
    if (!tok || (tok.t !== 'word' && tok.t !== 'str')) return fail('a value');
    p++;
    return literal(tok);
  };
  const list = (): FilterValue[] => {
    if (peek()?.v !== '(') fail('"(" and a list of values');
    p++;
    const vals = [value()];
    while (peek()?.v === ',') {
      p++;
      vals.push(value());
    }
    if (peek()?.v !== ')') fail('")"');
    p++;
    return vals;
  };
  const cond = (): Filter => {
    const f = peek();
    if (!f || (f.t !== 'word' && f.t !== 'str')) return fail('a field name');
    p++;
    const field = f.v;
    const tok = peek();
    if (tok?.t === 'op') {
      p++;
      const operand = peek();
      const v = value();
      if (operand?.t === 'str' && NUMBER.test(operand.v))
        notes.push(
          `${operand.raw} is quoted, so it is compared as text and never equals the number ${operand.v}; write ${f.raw} ${tok.v} ${operand.v} to compare the number.`,
        );
      return { [field]: { [OPS[tok.v]!]: v } } as Filter;
    }
    let negate = false;
    if (kw('not')) {
      negate = true;
      p++;
    }
    if (kw('in')) {
      p++;
      return { [field]: { [negate ? 'nin' : 'in']: list() } } as Filter;
    }
    if (kw('exists')) {
      p++;
      return { [field]: { exists: !negate } } as Filter;
    }
    if (kw('prefix') && !negate) {
      p++;
      const v = value();
      return { [field]: { prefix: String(v) } } as Filter;
    }
    return fail('an operator (=, !=, >, >=, <, <=, in, not in, exists, not exists, prefix)');
  };
  const unary = (): Filter => {
    if (kw('not')) {
      p++;
      return { not: unary() };
    }
    if (peek()?.v === '(') {
      p++;
      const e = or();
      if (peek()?.v !== ')') fail('")"');
      p++;
      return e;
    }
    return cond();
  };
  const and = (): Filter => {
    const parts = [unary()];
    while (kw('and')) {
      p++;
      parts.push(unary());
    }
    return parts.length === 1 ? parts[0]! : { and: parts };
  };
  const or = (): Filter => {
    const parts = [and()];
    while (kw('or')) {
      p++;
      parts.push(and());
    }
    return parts.length === 1 ? parts[0]! : { or: parts };
  };
  if (!toks.length) throw new UsageError('--where is empty.');
  const f = or();
  if (p < toks.length) fail('"and", "or" or the end');
  return f;
}

/** `--filter <json>` and `--where <expr>` together: both must hold. */
export function filterFlags(where: string | undefined, json: string | undefined, notes?: string[]): Filter | undefined {
  const parts: Filter[] = [];
  if (json !== undefined) {
    let f: unknown;
    try {
      f = JSON.parse(json);
    } catch {
      throw new UsageError('--filter must be JSON, for example \'{"year": {"gte": 2024}}\'.');
    }
    parts.push(f as Filter);
  }
  if (where !== undefined) parts.push(parseWhere(where, notes));
  if (!parts.length) return undefined;
  return parts.length === 1 ? parts[0] : { and: parts };
}

/** `--meta key=value` (repeatable): values typed as in --where (2024 is a number, 'x' a string). */
export function metaFlags(list: string[] | undefined): DocumentMetadata | undefined {
  if (!list?.length) return undefined;
  const out: DocumentMetadata = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq < 1) throw new UsageError(`--meta takes key=value, not "${item}".`);
    const raw = item.slice(eq + 1);
    out[item.slice(0, eq)] = literal({
      t: /^(['"]).*\1$/s.test(raw) ? 'str' : 'word',
      v: /^(['"]).*\1$/s.test(raw) ? raw.slice(1, -1) : raw,
    });
  }
  return out;
}

/** One metadata value as --meta takes it back: `2024`, `true`, `legal`, `'007'` (a string that reads as a number). */
export function formatMetaValue(v: DocumentMetadata[string]): string {
  if (typeof v !== 'string') return Array.isArray(v) ? JSON.stringify(v) : String(v);
  const typed = literal({ t: 'word', v });
  return typeof typed === 'string' && v !== '' && v.trim() === v && !/^(['"]).*\1$/s.test(v) ? v : `'${v}'`;
}
