import type { OrganizerDraft } from '../../model/draft.ts';
import type { Prop } from '../../ical/contentline.ts';
import { organizerFromProp } from './organizer.ts';
import type { Component } from '../../ical/parse.ts';
import { parseRRule, type RRule } from '../../ical/rrule.ts';
import { decodeQuotedPrintable, splitTextList, unescapeText } from '../../ical/text.ts';
import {
  parseDuration,
  parsePeriodList,
  parseTimeList,
  parseTimeProp,
  tzidOf,
  type IcsDuration,
  type IcsTime,
} from '../../ical/values.ts';
import { memoized, memoizedBy } from '../../util/memo.ts';
import { parseGeo, type AppleLocation, type Geo } from './venue.ts';

/**
 * One VEVENT -> the fields we use, typed and decoded, with what was wrong with it. No time-zone
 * resolution and no recurrence here: this is per-component reading only.
 */
export interface RDateItem {
  time: IcsTime;
  end?: IcsTime;
  duration?: IcsDuration;
}

export interface RawEvent {
  /** 1-based position among the file's VEVENTs. */
  index: number;
  line: number;
  uid?: string;
  summary?: string;
  /** DESCRIPTION, decoded and unescaped, exactly as written (not trimmed). */
  description?: string;
  /** X-ALT-DESC;FMTTYPE=text/html, decoded and unescaped (not yet sanitized). */
  htmlDescription?: string;
  dtstart?: IcsTime;
  /** Why DTSTART is unusable, when it is. */
  dtstartProblem?: string;
  dtend?: IcsTime;
  duration?: IcsDuration;
  rrules: RRule[];
  exrules: RRule[];
  rdates: RDateItem[];
  exdates: IcsTime[];
  recurrenceId?: IcsTime;
  thisAndFuture: boolean;
  status?: string;
  sequence: number;
  location?: string;
  geo?: Geo;
  apple?: AppleLocation;
  organizer?: Omit<OrganizerDraft, 'status'>;
  categories: string[];
  url?: string;
  image?: string;
  /** LAST-MODIFIED as UTC seconds. */
  lastModified?: number;
  /** TZIDs referenced by this event's time properties. */
  tzids: string[];
  /** Damage found and worked around (reported as warnings). */
  problems: string[];
}

/** TEXT property value: QUOTED-PRINTABLE decoded when declared, then RFC 5545 unescaped. */
export function textValue(p: Prop): string {
  let v = p.value;
  // Most properties have no ENCODING: no regex run on an empty string for each of them.
  const enc = p.params.ENCODING;
  if (enc !== undefined && /^quoted-printable$/i.test(enc)) v = decodeQuotedPrintable(v, p.params.CHARSET ?? 'utf-8');
  return unescapeText(v);
}

const IMAGE_EXT = /\.(?:png|jpe?g|gif|webp|avif|svg)(?:[?#].*)?$/i;

function imageFrom(p: Prop): string | undefined {
  if (/^binary$/i.test(p.params.VALUE ?? '') || /^base64$/i.test(p.params.ENCODING ?? '')) return undefined;
  const v = p.value.trim();
  if (!/^https?:\/\/\S+$/i.test(v)) return undefined;
  const fmt = p.params.FMTTYPE ?? '';
  if (p.name === 'IMAGE' || /^image\//i.test(fmt) || (!fmt && IMAGE_EXT.test(v))) return v;
  return undefined;
}

/** ai1ec's `X-WP-IMAGES-URL:size;url;w;h,size;url;w;h`: the largest listed size. */
function wpImage(value: string): string | undefined {
  let best: string | undefined;
  let bestW = -1;
  for (const item of splitTextList(value)) {
    const [, url, w] = item.split(';');
    if (url && /^https?:\/\//i.test(url) && Number(w ?? 0) > bestW) {
      best = url;
      bestW = Number(w ?? 0);
    }
  }
  return best;
}

function appleLocation(p: Prop): AppleLocation {
  const geoMatch = /^geo:([^?]+)/i.exec(p.value.trim());
  const title = p.params['X-TITLE'] ? unescapeText(p.params['X-TITLE']).trim() : undefined;
  const address = p.params['X-ADDRESS'] ? unescapeText(p.params['X-ADDRESS']).trim() : undefined;
  return { title: title || undefined, address: address || undefined, geo: geoMatch ? parseGeo(geoMatch[1]) : undefined };
}

/*
 * A feed repeats a few places, people and category lists thousands of times: each distinct GEO,
 * ORGANIZER and CATEGORIES value is read once and what it gives is shared by the events that carry it
 * (frozen or never changed: a RawEvent is not changed once read). Fewer objects that live as long as
 * the events is less for the garbage collector to copy, and content.ts reuses work per shared object.
 */
const geoOf = memoized(parseGeo);
/** organizerFromProp reads the CN parameter and the value only: the key tells both apart. */
const organizerOf = memoizedBy((p: Prop) => (p.params.CN === undefined ? `-${p.value}` : `${p.params.CN.length}:${p.params.CN}${p.value}`), organizerFromProp);
/** LOCATION text (a feed's few places, over and over): one string per place, shared by its events. */
const unescapedOf = memoized(unescapeText);
const textListOf = memoized((value: string): readonly string[] => Object.freeze(splitTextList(value)));

/** Reads one property into the event; the first of most properties wins. */
type PropReader = (e: RawEvent, p: Prop) => void;

const invalidValue = (p: Prop, what: string): string => `line ${p.line}: invalid ${what} ${JSON.stringify(p.value)} ignored`;

const TEXT_READERS: Record<string, PropReader> = {
  UID: (e, p) => {
    const v = p.value.trim();
    if (v && e.uid === undefined) e.uid = v;
  },
  SUMMARY: (e, p) => void (e.summary ??= textValue(p)),
  DESCRIPTION: (e, p) => void (e.description ??= textValue(p)),
  'X-ALT-DESC': (e, p) => {
    if (/html/i.test(p.params.FMTTYPE ?? '') && e.htmlDescription === undefined) e.htmlDescription = textValue(p);
  },
  LOCATION: (e, p) => void (e.location ??= p.params.ENCODING === undefined ? unescapedOf(p.value) : textValue(p)),
  CATEGORIES: (e, p) => {
    // An event's one CATEGORIES line (the usual case) keeps the shared list; more lines add up.
    const list = textListOf(p.value);
    e.categories = e.categories.length ? [...e.categories, ...list] : (list as string[]);
  },
  STATUS: (e, p) => void (e.status = p.value.trim().toUpperCase()),
  SEQUENCE: (e, p) => {
    const n = parseInt(p.value, 10);
    if (Number.isFinite(n)) e.sequence = n;
  },
};

const TIME_READERS: Record<string, PropReader> = {
  DTSTART: (e, p) => {
    // Seen once DTSTART set either of them; a second DTSTART is damage.
    if (e.dtstart !== undefined || e.dtstartProblem !== undefined) return void own(e, 'problems').push(`line ${p.line}: second DTSTART ignored`);
    const t = p.noValue ? undefined : parseTimeProp(p);
    if (t) e.dtstart = t;
    else e.dtstartProblem = `invalid DTSTART ${JSON.stringify(p.value)} at line ${p.line}`;
  },
  DTEND: (e, p) => {
    if (e.dtend) return;
    const t = parseTimeProp(p);
    if (t) e.dtend = t;
    else own(e, 'problems').push(invalidValue(p, 'DTEND'));
  },
  DURATION: (e, p) => {
    const d = parseDuration(p.value);
    if (d) e.duration ??= d;
    else own(e, 'problems').push(invalidValue(p, 'DURATION'));
  },
  'RECURRENCE-ID': (e, p) => {
    const t = parseTimeProp(p);
    if (t) e.recurrenceId = t;
    else own(e, 'problems').push(invalidValue(p, 'RECURRENCE-ID'));
    if (/^thisandfuture$/i.test(p.params.RANGE ?? '')) e.thisAndFuture = true;
  },
  'LAST-MODIFIED': (e, p) => {
    const t = parseTimeProp(p);
    if (t && t.kind !== 'date') e.lastModified = t.sec; // floating stamps read as UTC
  },
};

function readRule(e: RawEvent, p: Prop): void {
  const { rule, problems } = parseRRule(p.value);
  for (const pr of problems) own(e, 'problems').push(`line ${p.line}: ${p.name} ${pr}`);
  if (rule) own(e, p.name === 'RRULE' ? 'rrules' : 'exrules').push(rule);
}

const RECURRENCE_READERS: Record<string, PropReader> = {
  RRULE: readRule,
  EXRULE: readRule,
  RDATE: (e, p) => {
    let bad: string[];
    if (/^period$/i.test(p.params.VALUE ?? '') || p.value.includes('/')) {
      const { items, invalid } = parsePeriodList(p);
      for (const it of items) own(e, 'rdates').push({ time: it.start, end: it.end, duration: it.duration });
      bad = invalid;
    } else {
      const { times, invalid } = parseTimeList(p);
      for (const t of times) own(e, 'rdates').push({ time: t });
      bad = invalid;
    }
    if (bad.length) own(e, 'problems').push(`line ${p.line}: invalid RDATE value(s) ${bad.join(', ')} ignored`);
  },
  EXDATE: (e, p) => {
    const { times, invalid } = parseTimeList(p);
    // One by one, not push(...times): a spread passes every value as an argument, and a feed's
    // EXDATE can list hundreds of thousands (test/regressions/ics-long-lists-stack.test.ts).
    if (times.length) {
      const exdates = own(e, 'exdates');
      for (const t of times) exdates.push(t);
    }
    if (invalid.length) own(e, 'problems').push(`line ${p.line}: invalid EXDATE value(s) ${invalid.join(', ')} ignored`);
  },
};

const PLACE_AND_LINK_READERS: Record<string, PropReader> = {
  GEO: (e, p) => {
    e.geo ??= geoOf(p.value);
    if (!e.geo && p.value.trim()) own(e, 'problems').push(invalidValue(p, 'GEO'));
  },
  'X-APPLE-STRUCTURED-LOCATION': (e, p) => void (e.apple ??= appleLocation(p)),
  ORGANIZER: (e, p) => void (e.organizer ??= organizerOf(p)),
  URL: (e, p) => {
    const v = p.value.trim();
    if (v && e.url === undefined) e.url = v;
  },
  ATTACH: (e, p) => void (e.image ??= imageFrom(p)),
  IMAGE: (e, p) => void (e.image ??= imageFrom(p)),
  'X-WP-IMAGES-URL': (e, p) => void (e.image ??= wpImage(p.value)),
};

/**
 * By property name. A Map: the names are strings read from the file, and an object indexed by such a
 * string looks each one up in V8's table of internalized strings first (the dispatch was ~9% of
 * reading an event).
 */
const READERS = new Map<string, PropReader>(Object.entries({ ...TEXT_READERS, ...TIME_READERS, ...RECURRENCE_READERS, ...PLACE_AND_LINK_READERS }));

export function readEvent(c: Component, index: number): RawEvent {
  const e = newEvent(index, c.line);
  for (const p of c.props) readProp(e, p);
  return finishEvent(e);
}

/**
 * An event before its properties are read (readProp), each at once as it is parsed when the parse
 * streams them (normalize.ts), then finishEvent. readEvent does the three for a collected component.
 */
export function newEvent(index: number, line: number): RawEvent {
  // Every field from the start, in one order: all events share one shape (no property store grown
  // as the readers add fields, one object fewer per event) and code reading them sees only that shape.
  return {
    index, line, uid: undefined, summary: undefined, description: undefined, htmlDescription: undefined,
    dtstart: undefined, dtstartProblem: undefined, dtend: undefined, duration: undefined,
    rrules: NONE as never[], exrules: NONE as never[], rdates: NONE as never[], exdates: NONE as never[], recurrenceId: undefined, thisAndFuture: false, status: undefined, sequence: 0,
    location: undefined, geo: undefined, apple: undefined, organizer: undefined, categories: NONE as never[],
    url: undefined, image: undefined, lastModified: undefined, tzids: NONE as never[], problems: NONE as never[],
  };
}

/** The lists an event starts with shared and empty (NONE), made its own at their first item. */
type ListField = 'rrules' | 'exrules' | 'rdates' | 'exdates' | 'tzids' | 'problems';

/**
 * `e[k]`, the event's own array from here on: each list starts as the shared empty one, because most
 * events leave most of them empty (six new arrays per event were ~6 MB of the 20 MB feed's parse).
 */
function own<K extends ListField>(e: RawEvent, k: K): RawEvent[K] {
  const list = e[k];
  if ((list as unknown) !== NONE) return list;
  return (e[k] = [] as unknown as RawEvent[K]);
}

/** One property of the event, in file order. Keeps nothing of `p` but its strings (p may be reused). */
export function readProp(e: RawEvent, p: Prop): void {
  const tz = tzidOf(p);
  if (tz !== undefined && !e.tzids.includes(tz)) own(e, 'tzids').push(tz);
  READERS.get(p.name)?.(e, p);
}

/** The event once all its properties are read: what is missing noted, lists made exact. */
export function finishEvent(e: RawEvent): RawEvent {
  if (e.dtstart === undefined && e.dtstartProblem === undefined) e.dtstartProblem = 'no DTSTART';
  return lean(e);
}

/** An event's one TZID (the usual case) as a shared list per zone name. */
const tzidList = memoized((tzid: string): readonly string[] => Object.freeze([tzid]));

/**
 * A pushed-to array keeps room for 17 items: with a big feed's 60k events held through normalization,
 * that spare room in `tzids` and `categories` alone was 20 MB. Exact-size copies cost nothing later,
 * and the lists most events leave empty all become one shared frozen array (seven empty arrays per
 * event were another 13 MB); nothing changes a RawEvent once it is read.
 */
const NONE: readonly never[] = Object.freeze([]);

function exact<T>(list: T[]): T[] {
  return list.length ? list.slice() : (NONE as never[]);
}

function lean(e: RawEvent): RawEvent {
  // Categories are already exact: the shared empty list, a shared list (CATEGORIES), or their sum.
  e.tzids = e.tzids.length === 1 ? (tzidList(e.tzids[0]) as string[]) : exact(e.tzids);
  e.problems = exact(e.problems);
  e.exdates = exact(e.exdates);
  e.rdates = exact(e.rdates);
  e.rrules = exact(e.rrules);
  e.exrules = exact(e.exrules);
  return e;
}
