/**
 * One unfolded content line -> name, parameters and raw value (RFC 5545 3.1), without unescaping the
 * value (that depends on the value type). Tolerates what writers get wrong:
 * - empty parameters (`DTSTART;;VALUE=DATE-TIME:...`),
 * - a parameter without `=` glued to its value (`DTEND;TZIDAsia/Tehran:...`),
 * - a date-time swallowed by a quoted TZID (`DTSTART;TZID="W. Europe Standard Time:20200609T090000"`),
 * - RFC 6868 caret escapes in parameter values (`^n`, `^'`, `^^`),
 * - quoted values with `:`, `;` and `,` inside.
 */
export interface Prop {
  /** Upper-cased property name. */
  name: string;
  /** Upper-cased parameter names -> value (quotes removed; multiple values joined by `,`). First wins. */
  params: Record<string, string>;
  value: string;
  /** 1-based physical line number. */
  line: number;
  /** Set when the line had no `:` at all (the value is empty). */
  noValue?: boolean;
}

function caret(s: string): string {
  return s.indexOf('^') < 0 ? s : s.replace(/\^(n|N|'|\^)/g, (_, c: string) => (c === 'n' || c === 'N' ? '\n' : c === "'" ? '"' : '^'));
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * Property names as written -> upper-cased, shared by every line of one file (a parse passes one in):
 * a big feed repeats the same dozen names hundreds of thousands of times, and one string each is memory
 * for nothing. Bounded, so a file of unique names cannot grow it without limit.
 */
export type NameCache = Map<string, string>;
const MAX_NAMES = 512;

function upperName(raw: string, names: NameCache | undefined): string {
  let n = names?.get(raw);
  if (n !== undefined) return n;
  n = raw.trim().toUpperCase();
  if (names && names.size < MAX_NAMES) names.set(raw, n);
  return n;
}

export function parseContentLine(text: string, line: number, names?: NameCache): Prop | undefined {
  // Fast path for the common `NAME:value` line without parameters.
  const colon = text.indexOf(':');
  if (colon > 0) {
    const semi = text.indexOf(';');
    if (semi < 0 || semi > colon) {
      const name = upperName(text.slice(0, colon), names);
      return name ? { name, params: NO_PARAMS, value: text.slice(colon + 1), line } : undefined;
    }
  }
  const n = text.length;
  let i = 0;
  while (i < n && text[i] !== ';' && text[i] !== ':') i++;
  const name = upperName(text.slice(0, i), names);
  if (!name) return undefined;
  const params: Record<string, string> = {};
  let noValue = false;

  while (i < n && text[i] === ';') {
    i++;
    const ns = i;
    while (i < n && text[i] !== '=' && text[i] !== ';' && text[i] !== ':') i++;
    const pname = text.slice(ns, i).trim().toUpperCase();
    if (i >= n || text[i] !== '=') {
      // `TZIDAsia/Tehran`: a TZID whose `=` went missing.
      const glued = /^TZID(.+)$/.exec(pname);
      if (glued && !('TZID' in params)) params.TZID = text.slice(ns + 4, i).trim();
      continue;
    }
    i++; // '='
    const values: string[] = [];
    for (;;) {
      if (text[i] === '"') {
        const close = text.indexOf('"', i + 1);
        if (close < 0) {
          values.push(text.slice(i + 1));
          i = n;
          break;
        }
        values.push(text.slice(i + 1, close));
        i = close + 1;
      } else {
        const vs = i;
        while (i < n && text[i] !== ';' && text[i] !== ':' && text[i] !== ',') i++;
        values.push(text.slice(vs, i));
      }
      if (text[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    // Anything between a closing quote and the next delimiter is junk; skip it.
    while (i < n && text[i] !== ';' && text[i] !== ':') i++;
    if (pname && !(pname in params)) params[pname] = caret(values.join(','));
  }

  let value = '';
  if (i < n && text[i] === ':') value = text.slice(i + 1);
  else {
    noValue = true;
    // `DTSTART;TZID="W. Europe Standard Time:20200609T090000"`: recover the value the quote swallowed.
    const tz = params.TZID;
    const m = tz ? /^(.*):(\d{8}(?:T\d{4,6}Z?)?)$/.exec(tz) : null;
    if (m) {
      params.TZID = m[1];
      value = m[2];
      noValue = false;
    }
  }
  return noValue ? { name, params, value, line, noValue } : { name, params, value, line };
}
