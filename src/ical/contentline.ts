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
 * Property and parameter names as written -> upper-cased, and short parameter values -> as read,
 * shared by every line of one file (a parse passes one in): a big feed repeats the same dozen names and
 * a few TZIDs hundreds of thousands of times, and one string each is memory for nothing (a TZID lives
 * as long as the event's times). Bounded, so a file of unique names cannot grow it without limit.
 */
export interface NameCache {
  names: Map<string, string>;
  values: Map<string, string>;
  /**
   * The last name, and the last short parameter value, seen per slot (by length and first and last
   * characters), as written and as read. Nearly every line repeats them: each is compared in place,
   * without cutting it out of the line and hashing it for the maps above. A miss only costs the maps.
   */
  nameHints: Hints;
  valueHints: Hints;
}

interface Hints {
  raw: (string | undefined)[];
  read: (string | undefined)[];
}

function hints(): Hints {
  return { raw: new Array<string | undefined>(HINT_SLOTS).fill(undefined), read: new Array<string | undefined>(HINT_SLOTS).fill(undefined) };
}
const MAX_NAMES = 512;
const MAX_VALUE_CHARS = 64;
const HINT_SLOTS = 1024;

export function nameCache(): NameCache {
  return { names: new Map(), values: new Map(), nameHints: hints(), valueHints: hints() };
}

function hintSlot(text: string, start: number, end: number): number {
  return ((end - start) * 31 + text.charCodeAt(start) * 7 + text.charCodeAt(end - 1)) & (HINT_SLOTS - 1);
}

/** Whether `text` holds `raw` at `start` (and `raw` is `end - start` long). */
function holdsAt(text: string, start: number, end: number, raw: string | undefined): raw is string {
  if (raw === undefined || raw.length !== end - start) return false;
  for (let k = 0; k < raw.length; k++) if (text.charCodeAt(start + k) !== raw.charCodeAt(k)) return false;
  return true;
}

/**
 * `read(text.slice(start, end))` for a name or a short parameter value, from the hint of its slot
 * when the line repeats the last one seen there. `read` is a pure function of the text.
 */
function hinted(text: string, start: number, end: number, cache: NameCache, h: Hints, read: (raw: string, cache: NameCache) => string): string {
  if (end <= start) return read('', cache);
  const slot = hintSlot(text, start, end);
  if (holdsAt(text, start, end, h.raw[slot])) return h.read[slot]!;
  const raw = text.slice(start, end);
  const out = read(raw, cache);
  h.raw[slot] = raw;
  h.read[slot] = out;
  return out;
}

/** The upper-cased name at [start, end) of a line. */
function nameAt(text: string, start: number, end: number, cache: NameCache | undefined): string {
  return cache === undefined ? upperName(text.slice(start, end), cache) : hinted(text, start, end, cache, cache.nameHints, upperName);
}

function upperName(raw: string, cache: NameCache | undefined): string {
  const names = cache?.names;
  let n = names?.get(raw);
  if (n !== undefined) return n;
  n = raw.trim().toUpperCase();
  if (names && names.size < MAX_NAMES) names.set(raw, n);
  return n;
}

/** A parameter's value as read (RFC 6868 carets decoded), from the cache when it is short. */
function paramValue(raw: string, cache: NameCache | undefined): string {
  if (cache === undefined || raw.length > MAX_VALUE_CHARS) return caret(raw);
  let v = cache.values.get(raw);
  if (v === undefined) {
    v = caret(raw);
    if (cache.values.size < MAX_NAMES) cache.values.set(raw, v);
  }
  return v;
}

/** A single parameter value at [start, end) of a line, as paramValue reads it. */
function valueAt(text: string, start: number, end: number, cache: NameCache | undefined): string {
  if (cache === undefined || end - start > MAX_VALUE_CHARS) return paramValue(text.slice(start, end), cache);
  return hinted(text, start, end, cache, cache.valueHints, paramValue);
}

const COLON = 58;
const SEMI = 59;
const EQUALS = 61;
const COMMA = 44;
const QUOTE = 34;

/**
 * Hand-rolled on character codes: this runs once per content line (600k for the bench's 20 MB feed),
 * and a parameter's single value, the usual case, is sliced once rather than collected and joined.
 */
export function parseContentLine(text: string, line: number, names?: NameCache): Prop | undefined {
  const p = readContentLine(text, line, names, SCRATCH);
  return p === undefined ? undefined : copyProp(p);
}

/** A Prop of its own from a reused one, shaped as ever (`noValue` only when set). */
export function copyProp(p: Prop): Prop {
  return p.noValue ? { name: p.name, params: p.params, value: '', line: p.line, noValue: true } : { name: p.name, params: p.params, value: p.value, line: p.line };
}

/** parseContentLine's own (readContentLine runs to its end without calling out, so one is enough). */
const SCRATCH: Prop = { name: '', params: NO_PARAMS, value: '', line: 0, noValue: false };

/** A Prop for readContentLine to fill (its `noValue` is always set, so every line leaves it one shape). */
export function scratchProp(): Prop {
  return { name: '', params: NO_PARAMS, value: '', line: 0, noValue: false };
}

/**
 * parseContentLine into `into`, which is overwritten and returned (undefined: not a content line).
 * A parse that hands most lines over to be read at once and dropped (a VEVENT's, parse.ts) passes
 * one Prop for all of them: an object per line of a 20 MB feed was ~20 MB of garbage.
 */
export function readContentLine(text: string, line: number, names: NameCache | undefined, into: Prop): Prop | undefined {
  const n = text.length;
  let i = 0;
  let c = 0;
  while (i < n && (c = text.charCodeAt(i)) !== COLON && c !== SEMI) i++;
  const name = nameAt(text, 0, i, names);
  if (!name) return undefined;
  into.name = name;
  into.line = line;
  into.noValue = false;
  // Fast path for the common `NAME:value` line without parameters.
  if (i > 0 && i < n && c === COLON) {
    into.params = NO_PARAMS;
    into.value = text.slice(i + 1);
    return into;
  }
  const params: Record<string, string> = {};
  into.params = params;
  while (i < n && text.charCodeAt(i) === SEMI) i = readParam(text, i + 1, params, names);

  if (i < n && text.charCodeAt(i) === COLON) {
    into.value = text.slice(i + 1);
    return into;
  }
  // `DTSTART;TZID="W. Europe Standard Time:20200609T090000"`: recover the value the quote swallowed.
  const tz = params.TZID;
  const m = tz ? /^(.*):(\d{8}(?:T\d{4,6}Z?)?)$/.exec(tz) : null;
  if (m) {
    params.TZID = m[1];
    into.value = m[2];
    return into;
  }
  into.value = '';
  into.noValue = true;
  return into;
}

/** One `NAME=value[,value...]` parameter from `i` (after its `;`) into `params`; returns where it ends. */
function readParam(text: string, i: number, params: Record<string, string>, cache: NameCache | undefined): number {
  const n = text.length;
  const ns = i;
  let c = 0;
  while (i < n && (c = text.charCodeAt(i)) !== EQUALS && c !== SEMI && c !== COLON) i++;
  const pname = nameAt(text, ns, i, cache);
  if (i >= n || c !== EQUALS) {
    // `TZIDAsia/Tehran`: a TZID whose `=` went missing.
    const glued = /^TZID(.+)$/.exec(pname);
    if (glued && !('TZID' in params)) params.TZID = text.slice(ns + 4, i).trim();
    return i;
  }
  i++; // '='
  // The first value is kept as its span [vs, ve) until a second one shows up: a single short value
  // (the usual case) is then read through the cache's hint without being cut out of the line.
  let vs = i;
  let ve = i;
  let more: string[] | undefined;
  for (let first = true; ; first = false) {
    let s = i;
    let e: number;
    if (text.charCodeAt(i) === QUOTE) {
      const close = text.indexOf('"', i + 1);
      s = i + 1;
      e = close < 0 ? n : close;
      i = close < 0 ? n : close + 1;
    } else {
      while (i < n && (c = text.charCodeAt(i)) !== SEMI && c !== COLON && c !== COMMA) i++;
      e = i;
    }
    if (first) {
      vs = s;
      ve = e;
    } else (more ??= [text.slice(vs, ve)]).push(text.slice(s, e));
    if (i < n && text.charCodeAt(i) === COMMA) {
      i++;
      continue;
    }
    break;
  }
  // Anything between a closing quote and the next delimiter is junk; skip it.
  while (i < n && (c = text.charCodeAt(i)) !== SEMI && c !== COLON) i++;
  if (pname && !(pname in params)) params[pname] = more ? paramValue(more.join(','), cache) : valueAt(text, vs, ve, cache);
  return i;
}
