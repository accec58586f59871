import { cleanOrganizer, cleanVenue } from '../../model/clean.ts';
import type { EventDraft, TermDraft } from '../../model/draft.ts';
import { plainText, sanitizeHtml } from '../../model/html.ts';
import { unambiguousZone } from '../../model/site-time.ts';
import { formatUtcIso, formatWall, utcToWall } from '../../model/timezones.ts';
import { label } from './accounting.ts';
import type { RawEvent } from './event.ts';
import type { Frame, Occ } from './expand.ts';
import { collapseSpaces, looksLikeHtml, nfc, plainToHtml } from './text.ts';
import { isUrlOnly, venueFromLocation } from './venue.ts';

/**
 * A VEVENT's content fields (title, description, venue, organizer, terms, links) and the draft of one
 * occurrence built from them. Content depends only on the VEVENT (and the master an override inherits
 * from), never on the occurrence: computed once per VEVENT, shared by all its drafts.
 */

/** What a VEVENT without SUMMARY is called (RFC 5545 makes SUMMARY optional; calendar apps show this). */
export const NO_TITLE = '(No title)';
const DAY = 86_400;

export interface Content {
  title: string;
  description?: string;
  image?: string;
  website?: string;
  venue?: EventDraft['venue'];
  organizers: EventDraft['organizers'];
  categories: TermDraft[];
  /** The file's one empty term list, for the kind of terms the drafts do not carry. */
  noTerms: TermDraft[];
  cancelled: boolean;
  sourceModified?: string;
}

function cleanTitle(s: string | undefined): string | undefined {
  const t = s === undefined ? undefined : collapseSpaces(plainText(nfc(s)));
  return t || undefined;
}

function descriptionHtml(e: RawEvent): string | undefined {
  if (e.htmlDescription) {
    // Some writers double-escape (`\\n`): a literal backslash-n in markup is never content.
    const h = sanitizeHtml(nfc(e.htmlDescription.replace(/\\n/g, '\n')));
    if (h) return h;
  }
  const d = e.description === undefined ? undefined : nfc(e.description).trim();
  if (!d) return undefined;
  if (looksLikeHtml(d)) return sanitizeHtml(d) || undefined;
  return plainToHtml(d);
}

function absoluteUrl(u: string | undefined, base: string): string | undefined {
  if (!u) return undefined;
  try {
    const abs = /^https?:\/\//i.test(base) ? new URL(u, base) : new URL(u);
    return abs.protocol === 'http:' || abs.protocol === 'https:' ? abs.href : undefined;
  } catch {
    return undefined;
  }
}

function termNames(names: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const n of names) {
    const name = collapseSpaces(nfc(n));
    const k = name.toLowerCase();
    if (!name || seen.has(k)) continue;
    seen.add(k);
    out.push(name);
  }
  return out;
}

/** Content per VEVENT, computed on first use; a missing SUMMARY is warned about then. */
export class ContentCache {
  /** By the VEVENT's position in the file (RawEvent.index): a map keyed by 60k objects cost more than the reads it saved. */
  private readonly contents: (Content | undefined)[];
  // Feeds repeat a handful of places, people and category lists thousands of times: one venue, one
  // organizer list and one term list per distinct value, shared by every draft that carries it (drafts
  // are read, never changed, after normalization; the occurrences of one VEVENT always shared them).
  // A big feed's drafts held 20 MB of identical copies, and the parser thread cloned each one back.
  private readonly venues = new Map<string, EventDraft['venue']>();
  /** The same, for a LOCATION alone (no GEO, no Apple location): keyed by the text itself. */
  private readonly venuesByLocation = new Map<string | undefined, EventDraft['venue']>();
  private readonly organizerLists = new Map<string, EventDraft['organizers']>();
  private readonly termLists = new Map<string, TermDraft[]>();
  /**
   * The same lists by the very object a RawEvent carries: events share their parsed ORGANIZER, GEO and
   * CATEGORIES values (event.ts), so the cleaning and the keys above run once per shared value, not
   * once per event. Bounded like src/util/memo.ts; a miss only recomputes.
   */
  private readonly byRaw = new Map<object, EventDraft['organizers'] | TermDraft[] | Map<string | undefined, EventDraft['venue']>>();
  private readonly noTerms: TermDraft[] = [];
  private readonly noOrganizers: EventDraft['organizers'] = [];

  /** File name or URL: the base of relative URLs. */
  private readonly source: string;
  private readonly warn: (w: string) => void;

  /** `vevents`: how many the file has (their indexes run from 1 to it). */
  constructor(source: string, warn: (w: string) => void, vevents: number) {
    this.contents = new Array<Content | undefined>(vevents + 1).fill(undefined);
    this.source = source;
    this.warn = warn;
  }

  /** The content of `e`; `base` is the master an override inherits missing properties from. */
  of(e: RawEvent, base: RawEvent | undefined): Content {
    let c = this.contents[e.index];
    if (!c) {
      c = this.read(e, base);
      this.contents[e.index] = c;
    }
    return c;
  }

  /**
   * Forgets the content of events whose drafts are made (a UID group's, once normalized: content is
   * only ever read within its group). The drafts keep the parts they share; the Content objects then
   * die young instead of living, and being copied by the garbage collector, until the file is done.
   */
  forget(events: readonly RawEvent[]): void {
    for (const e of events) this.contents[e.index] = undefined;
  }

  private read(e: RawEvent, base: RawEvent | undefined): Content {
    let title = cleanTitle(e.summary) ?? cleanTitle(base?.summary);
    if (!title) {
      title = NO_TITLE;
      this.warn(`${label(e)}: no SUMMARY; imported as "${NO_TITLE}"`);
    }
    // Each field the event lacks comes from `base` (read field by field: a picker of any key was a
    // generic property lookup per field per VEVENT).
    const written = e.location ?? base?.location;
    const location = written?.trim() ? written : undefined;
    let website = absoluteUrl((e.url ?? base?.url)?.trim(), this.source);
    if (!website && location && isUrlOnly(location)) website = absoluteUrl(location.trim(), this.source);
    const lm = e.lastModified ?? base?.lastModified;
    return {
      title,
      description: descriptionHtml(e.description !== undefined || e.htmlDescription !== undefined || !base ? e : base),
      image: e.image ?? base?.image,
      website,
      venue: this.venueOf(location, e.geo ?? base?.geo, e.apple ?? base?.apple),
      organizers: this.organizersOf(e.organizer ?? base?.organizer),
      categories: this.termsOf(e.categories.length ? e.categories : (base?.categories ?? [])),
      noTerms: this.noTerms,
      cancelled: e.status === 'CANCELLED' || (e.status === undefined && base?.status === 'CANCELLED'),
      sourceModified: lm !== undefined ? formatUtcIso(lm) : undefined,
    };
  }

  private remembered<T extends EventDraft['organizers'] | TermDraft[] | Map<string | undefined, EventDraft['venue']>>(raw: object, make: () => T): T {
    let hit = this.byRaw.get(raw) as T | undefined;
    if (hit === undefined) {
      hit = make();
      if (this.byRaw.size >= 1024) this.byRaw.clear();
      this.byRaw.set(raw, hit);
    }
    return hit;
  }

  private organizersOf(o: RawEvent['organizer']): EventDraft['organizers'] {
    return o ? this.remembered(o, () => this.organizerList(o)) : this.noOrganizers;
  }

  private organizerList(o: RawEvent['organizer']): EventDraft['organizers'] {
    const cleaned = o ? cleanOrganizer(o) : undefined;
    if (!cleaned) return this.noOrganizers;
    const k = JSON.stringify(cleaned);
    let list = this.organizerLists.get(k);
    if (!list) this.organizerLists.set(k, (list = [cleaned]));
    return list;
  }

  private termsOf(raw: string[]): TermDraft[] {
    return raw.length ? this.remembered(raw, () => this.termList(raw.map(plainText))) : this.noTerms;
  }

  private termList(names: string[]): TermDraft[] {
    const kept = termNames(names);
    if (!kept.length) return this.noTerms;
    const k = kept.join('\u0000');
    let list = this.termLists.get(k);
    if (!list) this.termLists.set(k, (list = kept.map((name) => ({ name }))));
    return list;
  }

  private venueOf(location: string | undefined, geo: RawEvent['geo'], apple: RawEvent['apple']): EventDraft['venue'] {
    if (geo === undefined && apple === undefined) return byLocation(this.venuesByLocation, location, () => cleanVenue(venueFromLocation(location, geo, apple)));
    // By the GEO object events share, then by the location text: no key to build per event.
    if (apple === undefined) return byLocation(this.remembered(geo!, () => new Map()), location, () => this.venueByKey(location, geo, apple));
    return this.venueByKey(location, geo, apple);
  }

  private venueByKey(location: string | undefined, geo: RawEvent['geo'], apple: RawEvent['apple']): EventDraft['venue'] {
    const k = JSON.stringify([location, geo, apple]);
    if (!this.venues.has(k)) this.venues.set(k, cleanVenue(venueFromLocation(location, geo, apple)));
    return this.venues.get(k);
  }
}

/** The venue kept for a location text in `map`, made once (one lookup when it is there: most are). */
function byLocation(map: Map<string | undefined, EventDraft['venue']>, location: string | undefined, make: () => EventDraft['venue']): EventDraft['venue'] {
  let v = map.get(location);
  if (v === undefined && !map.has(location)) map.set(location, (v = make()));
  return v;
}

/**
 * formatWall through a direct-mapped cache: a feed's occurrences start and end on a few thousand
 * distinct wall times, and the drafts all live until the file is done, so one string per time
 * (instead of two new ones per draft: 240k on the bench's 20 MB feed) is less to make and less for
 * the garbage collector to copy. A slot holds the last second seen there; a miss formats.
 */
const WALL_SLOTS = 8192;
const wallSecs = new Float64Array(WALL_SLOTS).fill(NaN);
const wallStrings = new Array<string>(WALL_SLOTS).fill('');

function wallText(sec: number): string {
  // Times sit on whole minutes or hours: the slot mixes the minute number so nearby days spread out.
  const slot = (Math.imul(Math.floor(sec / 60), 0x9e3779b1) >>> 19) & (WALL_SLOTS - 1);
  if (wallSecs[slot] === sec) return wallStrings[slot];
  const text = formatWall(sec);
  wallSecs[slot] = sec;
  wallStrings[slot] = text;
  return text;
}

/** One placed occurrence -> the draft's time fields. */
function wallFields(o: Occ, f: Frame): { timezone: string; all_day: boolean; start_date: string; end_date: string } {
  if (f.kind === 'date') {
    // 00:00:00 of the first day, 23:59:59 of the last.
    const startDay = Math.floor(o.local / DAY);
    const lastDay = startDay + Math.max(1, o.span.days) - 1;
    return { timezone: f.outZone, all_day: true, start_date: wallText(startDay * DAY), end_date: wallText(lastDay * DAY + DAY - 1) };
  }
  if (f.kind === 'floating') return { timezone: f.outZone, all_day: false, start_date: wallText(o.local), end_date: wallText(o.endLocal) };
  // An instant in the hour DST repeats is written in a fixed zone: its wall time in outZone would be read
  // back as the other instant (src/model/site-time.ts).
  const fixed = unambiguousZone(f.outZone, o.utc, o.endUtc);
  if (fixed) return { timezone: fixed, all_day: false, start_date: wallText(utcToWall(fixed, o.utc)), end_date: wallText(utcToWall(fixed, o.endUtc)) };
  // place() already read the end on the frame zone's wall clock; the start is read again (in a DST gap
  // the instant's wall time is not the one written).
  const endWall = f.outZone === f.zone ? o.endLocal : utcToWall(f.outZone, o.endUtc);
  return { timezone: f.outZone, all_day: false, start_date: wallText(utcToWall(f.outZone, o.utc)), end_date: wallText(endWall) };
}

/** Where an occurrence's draft comes from and how it is filed. */
export interface DraftPlace {
  e: RawEvent;
  o: Occ;
  f: Frame;
  identity: string;
  /** The instance key of a series occurrence; undefined for a single event. */
  occurrence: string | undefined;
  source: string;
  status: string | undefined;
  asTags: boolean;
}

/** The draft of one occurrence: the VEVENT's content at the occurrence's times. */
export function occurrenceDraft(c: Content, p: DraftPlace): EventDraft {
  const w = wallFields(p.o, p.f);
  return {
    identity: p.identity,
    title: c.title,
    description: c.description,
    status: p.status,
    timezone: w.timezone,
    all_day: w.all_day,
    start_date: w.start_date,
    end_date: w.end_date,
    image: c.image,
    website: c.website,
    categories: p.asTags ? c.noTerms : c.categories,
    tags: p.asTags ? c.categories : c.noTerms,
    venue: c.venue,
    organizers: c.organizers,
    cancelled: c.cancelled,
    sourceModified: c.sourceModified,
    origin: { source: p.source, line: p.e.line, uid: p.e.uid, occurrence: p.occurrence },
  };
}
