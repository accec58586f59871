import { cleanOrganizer, cleanVenue } from '../../model/clean.ts';
import { EventDraft, type ItemFailure, type Normalized, type TermDraft } from '../../model/draft.ts';
import { plainText, sanitizeHtml } from '../../model/html.ts';
import { civilFromDays, formatDay, formatLocalIso, formatUtcIso, formatWall, utcToWall } from '../../model/timezones.ts';
import { decodeIcs } from './decode.ts';
import { readEvent, textValue, type RawEvent } from './event.ts';
import {
  defaultSpan,
  expandSeries,
  frameOf,
  frameLocal,
  inWindow,
  instantOf,
  place,
  selectorOf,
  spanOf,
  type Frame,
  type Occ,
  type Selector,
  type Span,
  type TimeContext,
} from './expand.ts';
import { IcsLimitError, IcsNotCalendarError } from './errors.ts';
import { parseIcsText, type Component } from './parse.ts';
import type { Budget } from './rrule.ts';
import { notCalendarKind } from './sniff.ts';
import { looksLikeHtml, plainToHtml } from './text.ts';
import { isUrlOnly, venueFromLocation } from './venue.ts';
import { readVTimezone, type VTimezoneDef } from './vtimezone.ts';
import { WarningList } from './warnings.ts';
import { buildZoneContext } from './zones.ts';

export interface IcsNormalizeOptions {
  /** Source key (slug prefix). Identities here do not include it; the writer combines the two. */
  sourceKey: string;
  /** File name or URL: used in origins and messages, and to resolve relative URLs. */
  sourceName: string;
  /** Occurrences overlapping [from, to) become drafts; VEVENTs with none are counted as outside the window. */
  window: { from: Date; to: Date };
  /** Zone for floating times when the feed names none (X-WR-TIMEZONE). Default `UTC`. */
  defaultTimezone?: string;
  /** Copied into every draft (`publish` | `draft`). */
  status?: string;
  /** Where CATEGORIES go. Default `categories`. */
  categoriesAs?: 'categories' | 'tags';
  /** Occurrences per series inside the window; more are dropped with a warning. Default 5000. */
  maxOccurrencesPerSeries?: number;
  /** Recurrence work units for the whole file (periods/days examined); protects against runaway rules. Default 50 million (about 10-20 s of work). */
  maxRecurrenceWork?: number;
  /**
   * Occurrences generated (and drafts produced, and VEVENTs read) per file; more fails the whole file
   * with IcsLimitError (`ics-too-many-occurrences`). Counts what expansion produces, in and around the
   * window, so thousands of series each under the per-series cap cannot add up to gigabytes.
   * Default DEFAULT_MAX_OCCURRENCES_PER_FILE.
   */
  maxOccurrencesPerFile?: number;
}

/**
 * 250k: the 20 MB feed bench/import-ics parses (59k VEVENTs, 5% weekly series, a 13-month window)
 * produces 120k occurrences, and one corpus file 70k; 2,000 MINUTELY series produce millions.
 */
export const DEFAULT_MAX_OCCURRENCES_PER_FILE = 250_000;
/** What a VEVENT without SUMMARY is called (RFC 5545 makes SUMMARY optional; calendar apps show this). */
export const NO_TITLE = '(No title)';

export interface IcsSummary {
  /** VEVENT components read. */
  vevents: number;
  /** Recurring series (masters with RRULE/RDATE, and groups of overrides without master). */
  series: number;
  /** Drafts produced (including cancelled ones). */
  occurrences: number;
  /** VEVENTs without UID (identity is derived from content for these). */
  withoutUid: number;
  /** Drafts flagged `cancelled`. */
  cancelled: number;
  /** Failure items produced. */
  failures: number;
  calendarName?: string;
  /** Zone used for floating and UTC times. */
  calendarTimezone?: string;
  /** Distinct UIDs in file order. */
  uids: string[];
  /** Detected text encoding. */
  encoding: string;
  /** What became of each VEVENT; the four add up to `vevents`. */
  accounting: { drafted: number; failed: number; outsideWindow: number; superseded: number };
  /** Recovered damage, guesses and truncations, one line each (capped at 200 lines). */
  warnings: string[];
}

export interface IcsNormalizeResult {
  items: Normalized<EventDraft>[];
  summary: IcsSummary;
}

type Outcome = 'drafted' | 'failed' | 'outsideWindow' | 'superseded';
const DAY = 86_400;
/** Work units one series may use (a daily rule over a century is ~40k). */
const PER_SERIES_WORK = 1_000_000;

interface Calendar {
  name?: string;
  xWrTimezone?: string;
  vevents: Component[];
  vtimezones: VTimezoneDef[];
}

function collect(roots: Component[]): Calendar {
  const cal: Calendar = { vevents: [], vtimezones: [] };
  const visit = (c: Component, inCalendar: boolean): void => {
    if (c.name === 'VEVENT') cal.vevents.push(c);
    else if (c.name === 'VTIMEZONE') cal.vtimezones.push(...readVTimezone(c));
    else if (c.name === 'VCALENDAR' && !inCalendar) {
      for (const p of c.props) {
        if (p.name === 'X-WR-CALNAME' && cal.name === undefined) cal.name = textValue(p).trim() || undefined;
        if (p.name === 'X-WR-TIMEZONE' && cal.xWrTimezone === undefined) cal.xWrTimezone = textValue(p).trim() || undefined;
      }
      for (const ch of c.children) visit(ch, true);
    }
  };
  for (const r of roots) visit(r, false);
  return cal;
}

/**
 * Bytes -> calendar properties and read VEVENTs. A function of its own so the decoded text and the
 * component tree become garbage before expansion starts (they are most of the memory of a big feed).
 */
function readFile(bytes: Uint8Array, source: string, maxVevents: number): { encoding: string; cal: Omit<Calendar, 'vevents'>; raws: RawEvent[]; parseWarnings: WarningList } {
  if (bytes.byteLength === 0) throw new IcsNotCalendarError(source, 'empty');
  const { text, encoding } = decodeIcs(bytes);
  // Each VEVENT is read as soon as it closes (file order, as collect() would list them), so the whole
  // component tree of a big feed is never held at once; too many VEVENTs stop the parse right there.
  const raws: RawEvent[] = [];
  const parsed = parseIcsText(text, (c) => {
    if (raws.length >= maxVevents) throw new IcsLimitError(source, 'VEVENTs', maxVevents);
    raws.push(readEvent(c, raws.length + 1));
  });
  const notCalendar = notCalendarKind(text, parsed.roots);
  if (notCalendar) throw new IcsNotCalendarError(source, notCalendar);
  const { vevents: _emptied, ...cal } = collect(parsed.roots);
  return { encoding, cal, raws, parseWarnings: parsed.warnings };
}

function label(e: RawEvent): string {
  return `VEVENT #${e.index} at line ${e.line}${e.uid ? ` (UID ${e.uid})` : ''}`;
}

/** Content identity for a VEVENT without UID: summary, start as written, location. */
function syntheticUid(e: RawEvent): string {
  const t = e.dtstart;
  const start = !t ? '' : t.kind === 'date' ? formatDay(t.day) : t.kind === 'utc' ? formatUtcIso(t.sec) : `${formatLocalIso(t.sec)}${t.tzid !== undefined ? `@${t.tzid}` : ''}`;
  return `nouid|${(e.summary ?? '').trim()}|${start}|${(e.location ?? '').trim()}`;
}

function signature(e: RawEvent): string {
  return JSON.stringify([e.dtstart, e.dtend, e.duration, e.rrules, e.exrules, e.rdates, e.exdates, e.summary, e.description, e.location, e.status]);
}

function cleanTitle(s: string | undefined): string | undefined {
  const t = s === undefined ? undefined : plainText(s.normalize('NFC')).replace(/\s+/g, ' ').trim();
  return t || undefined;
}

function descriptionHtml(e: RawEvent): string | undefined {
  if (e.htmlDescription) {
    // Some writers double-escape (`\\n`): a literal backslash-n in markup is never content.
    const h = sanitizeHtml(e.htmlDescription.replace(/\\n/g, '\n').normalize('NFC'));
    if (h) return h;
  }
  const d = e.description?.normalize('NFC').trim();
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

function terms(names: string[]): TermDraft[] {
  const seen = new Set<string>();
  const out: TermDraft[] = [];
  for (const n of names) {
    const name = n.normalize('NFC').replace(/\s+/g, ' ').trim();
    const k = name.toLowerCase();
    if (!name || seen.has(k)) continue;
    seen.add(k);
    out.push({ name });
  }
  // Exact size: a pushed-to array keeps room for 17, and this one lives as long as the drafts.
  return out.length ? out.slice() : out;
}

/** One placed occurrence -> the draft's time fields. */
function wallFields(o: Occ, f: Frame): { timezone: string; all_day: boolean; start_date: string; end_date: string } {
  if (f.kind === 'date') {
    const startDay = Math.floor(o.local / DAY);
    const lastDay = startDay + Math.max(1, o.span.days) - 1;
    return { timezone: f.outZone, all_day: true, start_date: `${formatDay(startDay)} 00:00:00`, end_date: `${formatDay(lastDay)} 23:59:59` };
  }
  if (f.kind === 'floating') return { timezone: f.outZone, all_day: false, start_date: formatWall(o.local), end_date: formatWall(o.endLocal) };
  return { timezone: f.outZone, all_day: false, start_date: formatWall(utcToWall(f.outZone, o.utc)), end_date: formatWall(utcToWall(f.outZone, o.endUtc)) };
}

/**
 * Decode, parse and normalize an ICS feed into one EventDraft per occurrence in the window, or a failure
 * item with a reason. Synchronous and linear in the input (see index.ts for the pipeline).
 *
 * Time rules: a TZID'd time keeps its zone (resolved to IANA); a floating time keeps its wall clock in the
 * calendar zone (X-WR-TIMEZONE, else the zone of the file's only VTIMEZONE, else `defaultTimezone`); a UTC
 * time keeps its instant and is written as wall time in the calendar zone. All-day events are dates in
 * the calendar zone, ending 23:59:59 on their last day.
 *
 * Identity: `UID` for a single event; `UID|<original start>` for each instance of a series (UTC instant
 * `2024-06-01T18:00:00Z`, floating wall time `2024-06-01T20:00:00`, or date `2024-06-01`), where an
 * override uses its RECURRENCE-ID, so moving an instance keeps its identity. Without UID the content
 * stands in: `nouid|<summary>|<start as written>|<location>`.
 */
export function normalizeIcs(bytes: Uint8Array, opts: IcsNormalizeOptions): IcsNormalizeResult {
  const maxOccurrences = opts.maxOccurrencesPerFile ?? DEFAULT_MAX_OCCURRENCES_PER_FILE;
  const { encoding, cal, raws, parseWarnings } = readFile(bytes, opts.sourceName, maxOccurrences);
  const warnings = new WarningList();
  const warn = (w: string): void => warnings.add(w);
  warnings.addAll(parseWarnings);
  // Everything expansion produced so far (kept or not): the file's output budget.
  let produced = 0;
  const produce = (n: number): void => {
    produced += n;
    if (produced > maxOccurrences) throw new IcsLimitError(opts.sourceName, 'occurrences', maxOccurrences);
  };

  const outcome: Outcome[] = raws.map(() => 'outsideWindow');
  const items: Normalized<EventDraft>[] = [];
  const cap = opts.maxOccurrencesPerSeries ?? 5000;
  const budget: Budget = { remaining: opts.maxRecurrenceWork ?? 50_000_000 };
  const from = Math.floor(opts.window.from.getTime() / 1000);
  const to = Math.ceil(opts.window.to.getTime() / 1000);
  const source = opts.sourceName;

  // --- time zones -------------------------------------------------------------------------------
  const used = new Set<string>();
  let refYear: number | undefined;
  for (const e of raws) {
    for (const t of e.tzids) used.add(t);
    if (refYear === undefined && e.dtstart) refYear = civilFromDays(Math.floor((e.dtstart.kind === 'date' ? e.dtstart.day * DAY : e.dtstart.sec) / DAY)).y;
  }
  const zones = buildZoneContext({
    vtimezones: cal.vtimezones,
    xWrTimezone: cal.xWrTimezone,
    defaultTimezone: opts.defaultTimezone ?? 'UTC',
    usedTzids: used,
    refYear: refYear ?? new Date().getUTCFullYear(),
  });
  const zoneWarned = new Set<string>();
  const ctx: TimeContext = {
    calendarZone: zones.calendarZone,
    zoneFor(tzid, atSec) {
      const r = zones.resolve(tzid, atSec);
      if (r.warning && !zoneWarned.has(tzid)) {
        zoneWarned.add(tzid);
        warn(r.warning);
      }
      return r.zone;
    },
  };

  // --- failures and per-event problems ------------------------------------------------------------
  const fail = (e: RawEvent, reason: string): void => {
    outcome[e.index - 1] = 'failed';
    const f: ItemFailure = { kind: 'event', origin: { source, line: e.line, uid: e.uid }, reason: `${label(e)}: ${reason}`, raw: e.uid };
    items.push({ ok: false, failure: f });
  };
  for (const e of raws) for (const p of e.problems) warn(`${label(e)}: ${p}`);

  // --- group by UID -------------------------------------------------------------------------------
  interface Group {
    uid: string;
    masters: RawEvent[];
    overrides: RawEvent[];
  }
  const groups = new Map<string, Group>();
  const uids: string[] = [];
  let withoutUid = 0;
  for (const e of raws) {
    if (!e.uid) withoutUid++;
    else if (!groups.has(e.uid)) uids.push(e.uid);
    const uid = e.uid ?? syntheticUid(e);
    let g = groups.get(uid);
    if (!g) groups.set(uid, (g = { uid, masters: [], overrides: [] }));
    (e.recurrenceId ? g.overrides : g.masters).push(e);
  }

  let series = 0;
  let cancelled = 0;

  // Content fields depend only on the VEVENT (and the master it inherits from), never on the
  // occurrence: computed once per VEVENT, shared by all its drafts.
  interface Content {
    title: string;
    description?: string;
    image?: string;
    website?: string;
    venue?: EventDraft['venue'];
    organizers: EventDraft['organizers'];
    categories: TermDraft[];
    cancelled: boolean;
    sourceModified?: string;
  }
  const contents = new Map<RawEvent, Content>();
  // Feeds repeat a handful of places thousands of times: one venue object per distinct place.
  const venues = new Map<string, EventDraft['venue']>();
  const venueOf = (location: string | undefined, geo: RawEvent['geo'], apple: RawEvent['apple']): EventDraft['venue'] => {
    const k = JSON.stringify([location, geo, apple]);
    if (!venues.has(k)) venues.set(k, cleanVenue(venueFromLocation(location, geo, apple)));
    return venues.get(k);
  };
  const contentOf = (e: RawEvent, base: RawEvent | undefined): Content => {
    let c = contents.get(e);
    if (c) return c;
    let title = cleanTitle(e.summary) ?? cleanTitle(base?.summary);
    if (!title) {
      title = NO_TITLE;
      warn(`${label(e)}: no SUMMARY; imported as "${NO_TITLE}"`);
    }
    const pick = <K extends keyof RawEvent>(k: K): RawEvent[K] | undefined => e[k] ?? base?.[k];
    const location = pick('location')?.trim() ? pick('location') : undefined;
    let website = absoluteUrl(pick('url')?.trim(), source);
    if (!website && location && isUrlOnly(location)) website = absoluteUrl(location.trim(), source);
    const lm = pick('lastModified');
    c = {
      title,
      description: descriptionHtml(e.description !== undefined || e.htmlDescription !== undefined || !base ? e : base),
      image: pick('image'),
      website,
      venue: venueOf(location, pick('geo'), pick('apple')),
      organizers: pick('organizer') ? [cleanOrganizer(pick('organizer'))].filter((o) => o !== undefined) : [],
      categories: terms((e.categories.length ? e.categories : (base?.categories ?? [])).map(plainText)),
      cancelled: e.status === 'CANCELLED' || (e.status === undefined && base?.status === 'CANCELLED'),
      sourceModified: lm !== undefined ? formatUtcIso(lm) : undefined,
    };
    contents.set(e, c);
    return c;
  };

  const validated = new Set<RawEvent>();
  const emit = (e: RawEvent, base: RawEvent | undefined, o: Occ, f: Frame, identity: string, occurrence: string | undefined): boolean => {
    const c = contentOf(e, base);
    const asTags = opts.categoriesAs === 'tags';
    const w = wallFields(o, f);
    const draft: EventDraft = {
      identity,
      title: c.title,
      description: c.description,
      status: opts.status,
      timezone: w.timezone,
      all_day: w.all_day,
      start_date: w.start_date,
      end_date: w.end_date,
      image: c.image,
      website: c.website,
      categories: asTags ? [] : c.categories,
      tags: asTags ? c.categories : [],
      venue: c.venue,
      organizers: c.organizers,
      cancelled: c.cancelled,
      sourceModified: c.sourceModified,
      origin: { source, line: e.line, uid: e.uid, occurrence },
    };
    // The schema is checked once per VEVENT (content is shared by its occurrences, and the per-occurrence
    // fields are produced here in the schema's format); the end >= start rule is checked every time.
    if (!validated.has(e)) {
      const r = EventDraft.safeParse(draft);
      if (!r.success) {
        fail(e, r.error.issues.map((i) => `${i.path.join('.') || 'draft'}: ${i.message}`).join('; '));
        return false;
      }
      validated.add(e);
    } else if (draft.end_date < draft.start_date) {
      fail(e, `end is before start (${draft.end_date} < ${draft.start_date})`);
      return false;
    }
    items.push({ ok: true, draft });
    if (c.cancelled) cancelled++;
    if (outcome[e.index - 1] !== 'failed') outcome[e.index - 1] = 'drafted';
    return true;
  };

  /** Expand one series within the per-series and per-file work limits, reporting caps and runaways. */
  const runSeries = (e: RawEvent, f: Frame, span: Span, replaced: Selector[], reach: number, uid: string): Occ[] => {
    const seriesBudget: Budget = { remaining: Math.min(PER_SERIES_WORK, Math.max(0, budget.remaining)) };
    const granted = seriesBudget.remaining;
    if (!e.dtstart) {
      fail(e, 'no usable DTSTART for its recurrence');
      return [];
    }
    let res: ReturnType<typeof expandSeries>;
    try {
      res = expandSeries({ event: e, frame: f, span, replaced, window: { from, to }, reach, cap, budget: seriesBudget, ctx });
    } catch (err) {
      // Damage nothing else caught must cost this VEVENT only, never the whole file.
      fail(e, `its recurrence could not be expanded: ${(err as Error).message}`);
      return [];
    }
    budget.remaining -= granted - Math.max(0, seriesBudget.remaining);
    produce(res.produced);
    if (res.truncated) warn(`UID ${uid}: more than ${cap} occurrences in the window; only the first ${cap} kept`);
    if (res.exhausted) {
      const msg = `recurrence expansion stopped at the work limit (runaway RRULE ${e.rrules.map((r) => r.freq).join(',')}); ${res.occs.length} occurrence(s) kept`;
      warn(`UID ${uid}: ${msg}`);
      if (!res.occs.length) fail(e, msg);
    }
    return res.occs;
  };

  for (const g of groups.values()) {
    // Masters: keep the highest SEQUENCE; identical copies are superseded; distinct events sharing a UID
    // (an Evolution test feed does this) are kept apart with `#2`, `#3` identity suffixes.
    const masters: RawEvent[] = [];
    if (g.masters.length) {
      const top = Math.max(...g.masters.map((m) => m.sequence));
      const seen = new Set<string>();
      for (const m of g.masters) {
        const sig = g.masters.length > 1 ? signature(m) : '';
        if (m.sequence < top || seen.has(sig)) {
          outcome[m.index - 1] = 'superseded';
          continue;
        }
        seen.add(sig);
        masters.push(m);
      }
      if (masters.length > 1) warn(`UID ${g.uid}: ${masters.length} different VEVENTs without RECURRENCE-ID; later ones get identity suffixes #2.. (file order)`);
    }

    const validMasters: Array<{ e: RawEvent; f: Frame; span: Span; uid: string }> = [];
    masters.forEach((m, i) => {
      const uid = i === 0 ? g.uid : `${g.uid}#${i + 1}`;
      if (!m.dtstart) return fail(m, m.dtstartProblem ?? 'no DTSTART');
      // Content first, so a missing SUMMARY is warned about in file order.
      contentOf(m, undefined);
      const f = frameOf(m.dtstart, ctx);
      const s = spanOf(m.dtstart, m.dtend, m.duration, f, ctx);
      if (s && 'error' in s) return fail(m, s.error);
      validMasters.push({ e: m, f, span: s ?? defaultSpan(f), uid });
    });
    const master = validMasters[0];
    if (master && (master.e.rrules.length || master.e.rdates.length)) series++;
    else if (!master && g.overrides.length && !g.masters.length) series++;

    // Overrides: one per RECURRENCE-ID (highest SEQUENCE, later wins ties), keyed in the master's frame.
    interface Ov {
      e: RawEvent;
      key: string;
      sel: Selector;
    }
    const byKey = new Map<string, Ov>();
    for (const e of g.overrides) {
      const keyFrame = master?.f ?? frameOf(e.dtstart ?? e.recurrenceId!, ctx);
      const sel = selectorOf(e.recurrenceId!, keyFrame, ctx);
      const key = sel.key ?? formatDay(sel.day!);
      const prev = byKey.get(key);
      if (prev && prev.e.sequence > e.sequence) {
        outcome[e.index - 1] = 'superseded';
        continue;
      }
      if (prev) outcome[prev.e.index - 1] = 'superseded';
      byKey.set(key, { e, key, sel });
    }
    const overrides = [...byKey.values()];

    const recurring = !master || master.e.rrules.length > 0 || master.e.rdates.length > 0;
    const masterKey = master ? selectorOf(master.e.dtstart!, master.f, ctx).key : undefined;
    // A single (non-recurring) event is identified by its UID alone, so moving it updates it in place;
    // instances of a series by UID + original start, so an override that moves one keeps its identity.
    const identityFor = (uid: string, key: string): string => (recurring || key !== masterKey ? `${uid}|${key}` : uid);

    const out: Array<{ sort: number; run: () => void }> = [];

    // Each override: its own times (DTSTART, else the RECURRENCE-ID), span from its DTEND/DURATION, else
    // the master's (partial overrides), properties missing in it inherited from the master.
    for (const ov of overrides) {
      const e = ov.e;
      contentOf(e, master?.e);
      const startT = e.dtstart ?? e.recurrenceId!;
      const f = frameOf(startT, ctx);
      const s = spanOf(startT, e.dtend, e.duration, f, ctx);
      if (s && 'error' in s) {
        fail(e, s.error);
        continue;
      }
      const span = s ?? (master && (master.f.kind === 'date') === (f.kind === 'date') ? master.span : defaultSpan(f));
      const uid = master?.uid ?? g.uid;
      if (!master && (e.rrules.length || e.rdates.length)) {
        // An orphan that carries its own RRULE/RDATE (khal writes RANGE=THISANDFUTURE this way): expand it;
        // its first instance keeps the RECURRENCE-ID as identity.
        const first = place(frameLocal(startT, f, ctx), span, f).key;
        for (const o of runSeries(e, f, span, [], 0, uid)) {
          if (!inWindow(o, from, to)) continue;
          const key = o.key === first ? ov.key : o.key;
          out.push({ sort: o.utc, run: () => void emit(e, undefined, o, f, `${uid}|${key}`, key) });
        }
        continue;
      }
      const o = place(frameLocal(startT, f, ctx), span, f);
      produce(1);
      if (!inWindow(o, from, to)) continue;
      out.push({ sort: o.utc, run: () => void emit(e, master?.e, o, f, identityFor(uid, ov.key), recurring ? ov.key : undefined) });
    }

    // Masters. Later distinct masters sharing the UID are expanded the same way under suffixed identities.
    validMasters.forEach((m, i) => {
      const isRecurring = m.e.rrules.length > 0 || m.e.rdates.length > 0;
      const ranges = i === 0 ? overrides.filter((o) => o.e.thisAndFuture) : [];
      let reach = 0;
      const shifts = ranges.map((r) => {
        const t = r.e.dtstart ?? r.e.recurrenceId!;
        const rf = frameOf(t, ctx);
        const rStart = instantOf(r.e.recurrenceId!, ctx, m.f.zone);
        const newStart = instantOf(t, ctx, rf.zone);
        const s = spanOf(t, r.e.dtend, r.e.duration, rf, ctx);
        const span = s && !('error' in s) ? s : m.span;
        reach = Math.max(reach, Math.abs(newStart - rStart) + span.days * DAY + span.seconds);
        return { from: rStart, delta: newStart - rStart, span, frame: rf, ev: r.e };
      });
      shifts.sort((a, b) => a.from - b.from);
      const occs = runSeries(m.e, m.f, m.span, i === 0 ? overrides.map((o) => o.sel) : [], reach, m.uid);
      for (const o0 of occs) {
        let o = o0;
        let f = m.f;
        let ev = m.e;
        let base: RawEvent | undefined;
        // RANGE=THISANDFUTURE: the last range starting at or before this instance moves it by the same
        // offset and gives it that override's properties and length; the identity keeps the original.
        for (let k = shifts.length - 1; k >= 0; k--) {
          const sh = shifts[k];
          if (o0.utc < sh.from) continue;
          const wall = utcToWall(sh.frame.zone, o0.utc + sh.delta);
          o = place(sh.frame.kind === 'date' ? Math.floor(wall / DAY) * DAY : wall, sh.span, sh.frame);
          f = sh.frame;
          ev = sh.ev;
          base = m.e;
          break;
        }
        if (!inWindow(o, from, to)) continue;
        const key = o0.key;
        const identity = isRecurring ? `${m.uid}|${key}` : m.uid;
        out.push({
          sort: o.utc,
          run: () => {
            // A shifted instance is still the master's: count the master as drafted too.
            if (emit(ev, base, o, f, identity, isRecurring ? key : undefined) && ev !== m.e) outcome[m.e.index - 1] = 'drafted';
          },
        });
      }
    });

    out.sort((a, b) => a.sort - b.sort);
    for (const x of out) x.run();
    // A master whose instances in the window were all replaced by overrides still produced its series.
    if (master && outcome[master.e.index - 1] === 'outsideWindow' && overrides.some((o) => outcome[o.e.index - 1] === 'drafted')) {
      outcome[master.e.index - 1] = 'drafted';
    }
  }

  const acc = { drafted: 0, failed: 0, outsideWindow: 0, superseded: 0 };
  for (const o of outcome) acc[o]++;
  const drafts = items.filter((i) => i.ok).length;
  return {
    items,
    summary: {
      vevents: raws.length,
      series,
      occurrences: drafts,
      withoutUid,
      cancelled,
      failures: items.length - drafts,
      calendarName: cal.name,
      calendarTimezone: zones.calendarZone,
      uids,
      encoding,
      accounting: acc,
      warnings: warnings.list(),
    },
  };
}
