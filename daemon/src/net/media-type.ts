// The one reading of a Content-Type header (RFC 9110 §8.3.1):
//   media-type = type "/" subtype *( OWS ";" OWS [ parameter ] )
//   parameter  = token "=" ( token / quoted-string )
// Type, subtype and parameter names are case-insensitive (lowercased here); an empty parameter
// (`application/json;;;`) is allowed. Every route reads a request body's type through this file.

export interface MediaType {
  type: string;
  subtype: string;
  /** `type/subtype`, lowercase. */
  essence: string;
  /** In order, names lowercase, values unquoted. */
  parameters: [name: string, value: string][];
}

const TOKEN = /[!#$%&'*+.^_`|~0-9A-Za-z-]+/y;
const OWS = /[ \t]*/y;
// qdtext and quoted-pair (RFC 9110 §5.6.4), obs-text included.
const QUOTED = /"((?:[\t !#-[\]-~\x80-\xff]|\\[\t -~\x80-\xff])*)"/y;

function match(re: RegExp, s: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(s);
}

/** The media type of a Content-Type value, or undefined when the value is not one. */
export function parseMediaType(value: string): MediaType | undefined {
  const s = value.trim();
  const type = match(TOKEN, s, 0);
  if (!type || s[type[0].length] !== '/') return undefined;
  const subtype = match(TOKEN, s, type[0].length + 1);
  if (!subtype) return undefined;
  const parameters: [string, string][] = [];
  let i = type[0].length + 1 + subtype[0].length;
  while (i < s.length) {
    i += match(OWS, s, i)![0].length;
    if (s[i] !== ';') return undefined;
    i += 1;
    i += match(OWS, s, i)![0].length;
    if (i >= s.length || s[i] === ';') continue;
    const name = match(TOKEN, s, i);
    if (!name || s[i + name[0].length] !== '=') return undefined;
    i += name[0].length + 1;
    const token = match(TOKEN, s, i);
    const quoted = token ? null : match(QUOTED, s, i);
    if (!token && !quoted) return undefined;
    const raw = (token ?? quoted)!;
    parameters.push([name[0].toLowerCase(), token ? token[0] : quoted![1]!.replace(/\\(.)/g, '$1')]);
    i += raw[0].length;
  }
  const t = type[0].toLowerCase();
  const st = subtype[0].toLowerCase();
  return { type: t, subtype: st, essence: `${t}/${st}`, parameters };
}

/** The canonical text of a media type: `type/subtype; name=value`, a value quoted only where it must be. */
export function formatMediaType(m: MediaType): string {
  const value = (v: string) => (match(TOKEN, v, 0)?.[0] === v ? v : `"${v.replace(/["\\]/g, '\\$&')}"`);
  return [m.essence, ...m.parameters.map(([n, v]) => `${n}=${value(v)}`)].join('; ');
}

/** `application/json` or a `+json` structured syntax (RFC 6839), whatever the parameters; `application/jsonx` is not. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const m = contentType === undefined ? undefined : parseMediaType(contentType);
  return !!m && m.type === 'application' && (m.subtype === 'json' || /.\+json$/.test(m.subtype));
}

/** `type/subtype` of a Content-Type value, lowercase; undefined when absent or not a media type. */
export function mediaTypeEssence(contentType: string | undefined): string | undefined {
  return contentType === undefined ? undefined : parseMediaType(contentType)?.essence;
}
