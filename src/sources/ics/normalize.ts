import type { EventDraft, Normalized } from '../../model/draft.ts';
import { civilFromDays } from '../../model/timezones.ts';
import { parseIcsText, type Component } from '../../ical/parse.ts';
import { readVTimezone, type VTimezoneDef } from '../../ical/vtimezone.ts';
import type { WarningList } from '../../ical/warnings.ts';
import { FileAccounting, label, type Accounting } from './accounting.ts';
import { ContentCache } from './content.ts';
import { decodeIcs } from './decode.ts';
import { IcsLimitError, IcsNotCalendarError } from './errors.ts';
import { finishEvent, newEvent, readProp, textValue, type RawEvent } from './event.ts';
import type { IcsTime } from '../../ical/values.ts';
import type { TimeContext } from './expand.ts';
import { groupByUid } from './grouping.ts';
import { normalizeGroup, type FileRun } from './series.ts';
import { fileFingerprint, GroupPass, spanHash, windowSeconds, type GroupOutcomes, type ReusedGroupMeta } from './reuse.ts';
import { notCalendarKind } from './sniff.ts';
import { buildZoneContext } from './zones.ts';

export { NO_TITLE } from './content.ts';

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
  /**
   * Called after each UID group with every item made so far (a list that only grows): the parser
   * thread sends them on while it goes on parsing (parse-worker.ts).
   */
  onItems?: (items: readonly Normalized<EventDraft>[]) => void;
  /**
   * Group reuse (reuse.ts): every UID group is hashed and the result says which may be recorded;
   * groups whose hash is in `reuse` (recorded by the last clean run, still valid for this window)
   * are not normalized, their recorded outcome counted instead. Given as a function, it is asked for
   * once the file is read, just before the first group (the parser thread waits for it there).
   */
  groups?: { reuse?: ReadonlyMap<string, ReusedGroupMeta> | (() => ReadonlyMap<string, ReusedGroupMeta>) };
}

/**
 * 250k: the 20 MB feed bench/import-ics parses (59k VEVENTs, 5% weekly series, a 13-month window)
 * produces 120k occurrences, and one corpus file 70k; 2,000 MINUTELY series produce millions.
 */
export const DEFAULT_MAX_OCCURRENCES_PER_FILE = 250_000;

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
  /** Set when some DTSTART was a floating DATE-TIME read in the default zone (the feed names no calendar zone). */
  floatingInDefaultZone?: true;
  /** Distinct UIDs in file order. */
  uids: string[];
  /** Detected text encoding. */
  encoding: string;
  /** What became of each VEVENT; the four add up to `vevents`. */
  accounting: Accounting;
  /** Recovered damage, guesses and truncations, one line each (capped at 200 lines). */
  warnings: string[];
}

export interface IcsNormalizeResult {
  items: Normalized<EventDraft>[];
  summary: IcsSummary;
  /** With `groups`: the groups reused, and those normalized that may be recorded. */
  groups?: GroupOutcomes;
}

const DAY = 86_400;

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
/** What the file's time context needs from its VEVENTs, gathered as each is read. */
interface TimeUse {
  /** TZIDs the VEVENTs reference, in file order. */
  tzids: Set<string>;
  /** The first DTSTART of the file. */
  firstStart: IcsTime | undefined;
  /** Some DTSTART is a DATE-TIME without TZID or Z. */
  floating: boolean;
}

interface ReadFile {
  encoding: string;
  cal: Omit<Calendar, 'vevents'>;
  raws: RawEvent[];
  parseWarnings: WarningList;
  timeUse: TimeUse;
  /** VEVENTs read with problems, in file order. */
  damaged: RawEvent[];
  /** With `spans`: each VEVENT's text as written, hashed (reuse.ts), by RawEvent.index. */
  spans?: string[];
}

function readFile(bytes: Uint8Array, source: string, maxVevents: number, hashSpans = false): ReadFile {
  if (bytes.byteLength === 0) throw new IcsNotCalendarError(source, 'empty');
  const { text, encoding } = decodeIcs(bytes);
  // Each VEVENT is read as soon as it closes (file order, as collect() would list them), so the whole
  // component tree of a big feed is never held at once; too many VEVENTs stop the parse right there.
  // What later steps need from all of them is noted meanwhile: a pass over 60k events read long ago
  // is mostly cache misses.
  const raws: RawEvent[] = [];
  const timeUse: TimeUse = { tzids: new Set(), firstStart: undefined, floating: false };
  const damaged: RawEvent[] = [];
  // Each property is read into its event as it is parsed (one reused Prop for all of them).
  let open: RawEvent | undefined;
  const spans: string[] | undefined = hashSpans ? [] : undefined;
  let openAt = 0;
  const parsed = parseIcsText(text, {
    begin(line, offset) {
      if (raws.length >= maxVevents) throw new IcsLimitError(source, 'VEVENTs', maxVevents);
      open = newEvent(raws.length + 1, line);
      openAt = offset;
    },
    prop: (p) => readProp(open!, p),
    end(_c, offset) {
      const e = finishEvent(open!);
      if (spans) spans[e.index] = spanHash(text, openAt, offset);
      open = undefined;
      raws.push(e);
      for (const t of e.tzids) timeUse.tzids.add(t);
      timeUse.firstStart ??= e.dtstart;
      if (e.dtstart?.kind === 'local' && e.dtstart.tzid === undefined) timeUse.floating = true;
      if (e.problems.length) damaged.push(e);
    },
  });
  const notCalendar = notCalendarKind(text, parsed.roots);
  if (notCalendar) throw new IcsNotCalendarError(source, notCalendar);
  const { vevents: _emptied, ...cal } = collect(parsed.roots);
  return { encoding, cal, raws, parseWarnings: parsed.warnings, timeUse, damaged, ...(spans ? { spans } : {}) };
}

/**
 * The file's time context: TZIDs resolved against its VTIMEZONEs (the first DTSTART's year picks the
 * rules compared), each unresolvable TZID warned about once.
 */
function fileTimeContext(
  use: TimeUse,
  cal: Omit<Calendar, 'vevents'>,
  defaultTimezone: string,
  warn: (w: string) => void,
): { ctx: TimeContext; calendarZone: string; floatingInDefault: boolean; refYear: number | undefined; warnedZones: ReadonlySet<string> } {
  const used = use.tzids;
  const t = use.firstStart;
  const refYear = t === undefined ? undefined : civilFromDays(Math.floor((t.kind === 'date' ? t.day * DAY : t.sec) / DAY)).y;
  const zones = buildZoneContext({
    vtimezones: cal.vtimezones,
    xWrTimezone: cal.xWrTimezone,
    defaultTimezone,
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
  return { ctx, calendarZone: zones.calendarZone, floatingInDefault: use.floating && zones.calendarZoneHow === 'default', refYear, warnedZones: zoneWarned };
}

/**
 * Decode, parse and normalize an ICS feed into one EventDraft per occurrence in the window, or a failure
 * item with a reason. Synchronous and linear in the input (see index.ts for the pipeline): read the
 * file, resolve its zones, group VEVENTs by UID (grouping.ts), make each group's drafts (series.ts,
 * content.ts), and account for every VEVENT (accounting.ts).
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
  const { encoding, cal, raws, parseWarnings, timeUse, damaged, spans } = readFile(bytes, opts.sourceName, maxOccurrences, opts.groups !== undefined);
  const acct = new FileAccounting(raws.length, opts.sourceName, maxOccurrences);
  const warn = (w: string): void => acct.warn(w);
  acct.warnings.addAll(parseWarnings);
  const { ctx, calendarZone, floatingInDefault, refYear, warnedZones } = fileTimeContext(timeUse, cal, opts.defaultTimezone ?? 'UTC', warn);
  for (const e of damaged) for (const p of e.problems) warn(`${label(e)}: ${p}`);

  const run: FileRun = {
    source: opts.sourceName,
    window: windowSeconds(opts.window),
    cap: opts.maxOccurrencesPerSeries ?? 5000,
    budget: { remaining: opts.maxRecurrenceWork ?? 50_000_000 },
    ctx,
    acct,
    contents: new ContentCache(opts.sourceName, warn, raws.length),
    status: opts.status,
    asTags: opts.categoriesAs === 'tags',
  };
  const { groups, uids, withoutUid } = groupByUid(raws);
  const onItems = opts.onItems;
  const fileFp = (): string =>
    fileFingerprint({
      sourceKey: opts.sourceKey, sourceName: opts.sourceName, status: opts.status, categoriesAs: opts.categoriesAs, cap: run.cap, defaultTimezone: opts.defaultTimezone,
      xWrTimezone: cal.xWrTimezone, vtimezones: cal.vtimezones, calendarZone, refYear,
    });
  const reuse = opts.groups?.reuse;
  const pass = opts.groups && spans && new GroupPass(run, fileFp(), spans, typeof reuse === 'function' ? reuse() : reuse, warnedZones);
  for (const g of groups) {
    if (pass) pass.take(g);
    else normalizeGroup(g, run);
    onItems?.(acct.items);
  }

  const made = acct.items.filter((i) => i.ok).length;
  const drafts = made + acct.reusedDrafts;
  return {
    ...(pass ? { groups: pass.outcomes } : {}),
    items: acct.items,
    summary: {
      vevents: raws.length,
      series: acct.series,
      occurrences: drafts,
      withoutUid,
      cancelled: acct.cancelled,
      failures: acct.items.length - made,
      calendarName: cal.name,
      calendarTimezone: calendarZone,
      ...(floatingInDefault ? { floatingInDefaultZone: true as const } : {}),
      uids,
      encoding,
      accounting: acct.totals(),
      warnings: acct.warnings.list(),
    },
  };
}
