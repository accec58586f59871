import { tzlib_get_ical_block } from 'timezones-ical-library';
import { parseIcsText } from '../ical/parse.ts';
import { formatLocalDateTime, formatUtcOffset } from '../ical/values.ts';
import { onsets, readVTimezone, type Onset, type VTimezoneDef } from '../ical/vtimezone.ts';
import { civilFromDays, daysFromCivil, offsetAt } from '../model/timezones.ts';

/**
 * VTIMEZONE blocks, one per zone the feed's timed events use.
 *
 * timezones-ical-library (built with vzic from current tzdata) gives compact blocks with yearly
 * RRULEs, the form Outlook and Google read best. Those blocks describe only the zone's CURRENT
 * rules, though: for a window in which the rules changed (São Paulo had DST until 2019, Mexico
 * until 2022) they are wrong, and some names are aliases whose block carries another TZID
 * (`Africa/Accra` → `TZID:Africa/Abidjan`), which would leave our `TZID=` parameters dangling.
 *
 * So every block is checked against the runtime's tzdata (Intl) over the years the events span,
 * one year either side (the range TEC uses): same offset at the start of the range and the same
 * transitions inside it, the block read and its RRULEs evaluated by the same iCalendar grammar the
 * import uses (src/ical/: component tree, VTIMEZONE reader, RRULE engine). A block that passes is
 * used with its TZID set to our name; otherwise the block is built from the real transitions in the
 * range (one STANDARD/DAYLIGHT per transition, no RRULE, as TEC does). Either way, every
 * DTSTART/DTEND in the feed resolves to the right instant.
 */

const DAY = 86_400;
// One day: tzdata has no two transitions of a zone within a day of each other in modern times.
const SCAN_STEP = DAY;

export interface ZoneRange {
  /** UTC seconds of the earliest and latest instants the feed uses in this zone. */
  minSec: number;
  maxSec: number;
}

/** A change of offset: UTC seconds it happens at, offsets before and after (the grammar's Onset). */
export type Transition = Onset;

const yearOf = (sec: number): number => civilFromDays(Math.floor(sec / DAY)).y;

/** A library block read with the import's grammar; undefined when it holds no usable VTIMEZONE. */
function readLibraryBlock(text: string): VTimezoneDef | undefined {
  const root = parseIcsText(text).roots.find((c) => c.name === 'VTIMEZONE');
  const def = root ? readVTimezone(root)[0] : undefined;
  return def?.observances.length ? def : undefined;
}

/** The real transitions of `zone` in (fromSec, toSec], from the runtime's tzdata. */
export function zoneTransitions(zone: string, fromSec: number, toSec: number): Transition[] {
  const out: Transition[] = [];
  let t = fromSec;
  let off = offsetAt(zone, t);
  while (t < toSec) {
    const next = Math.min(t + SCAN_STEP, toSec);
    const nextOff = offsetAt(zone, next);
    if (nextOff !== off) {
      // Binary search for the first second with the new offset.
      let lo = t;
      let hi = next;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (offsetAt(zone, mid) === off) lo = mid;
        else hi = mid;
      }
      out.push({ at: hi, from: off, to: nextOff });
      off = nextOff;
    }
    t = next;
  }
  return out;
}

/** Whether a library block gives the same offsets as tzdata over the whole range. */
function blockMatches(def: VTimezoneDef, zone: string, fromSec: number, toSec: number): boolean {
  // A year either side: the onset in force at `fromSec` happened before it, and an onset up to 14 hours
  // before `toSec` (UTC) can fall on the next year's wall clock.
  const predicted = onsets(def, yearOf(fromSec) - 1, yearOf(toSec) + 1);
  let offAtStart = predicted.length ? predicted[0].from : def.observances[0].to;
  for (const tr of predicted) {
    if (tr.at <= fromSec) offAtStart = tr.to;
    else break;
  }
  if (offAtStart !== offsetAt(zone, fromSec)) return false;
  const inRange = predicted.filter((tr) => tr.at > fromSec && tr.at <= toSec && tr.from !== tr.to);
  const real = zoneTransitions(zone, fromSec, toSec);
  if (inRange.length !== real.length) return false;
  return inRange.every((tr, i) => tr.at === real[i].at && tr.to === real[i].to);
}

const abbrFormatters = new Map<string, Intl.DateTimeFormat>();

/** A zone abbreviation for TZNAME: the alphabetic one when Intl has it (EST), else tzdata's numeric style (-03). */
function tzName(zone: string, atSec: number, offset: number): string {
  let f = abbrFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' });
    abbrFormatters.set(zone, f);
  }
  const name = f.formatToParts(new Date(atSec * 1000)).find((p) => p.type === 'timeZoneName')?.value ?? '';
  if (/^[A-Z]{2,6}$/.test(name) && !/^(GMT|UTC)$/.test(name)) return name;
  const o = formatUtcOffset(offset);
  return o.endsWith('00') && o.length === 5 ? o.slice(0, 3) : o;
}

/** Standard offset of a year: the smaller of January's and July's (DST adds, in every zone that has it). */
function standardOffset(zone: string, atSec: number): number {
  const { y } = civilFromDays(Math.floor(atSec / DAY));
  return Math.min(offsetAt(zone, daysFromCivil(y, 1, 1) * DAY), offsetAt(zone, daysFromCivil(y, 7, 1) * DAY));
}

/** A block built from tzdata's real transitions over the range (used when the library block does not fit). */
export function generatedBlock(zone: string, fromSec: number, toSec: number): string {
  const lines = ['BEGIN:VTIMEZONE', `TZID:${zone}`];
  const observance = (at: number, from: number, to: number): void => {
    const kind = to > standardOffset(zone, at) ? 'DAYLIGHT' : 'STANDARD';
    lines.push(
      `BEGIN:${kind}`,
      `TZNAME:${tzName(zone, at, to)}`,
      `TZOFFSETFROM:${formatUtcOffset(from)}`,
      `TZOFFSETTO:${formatUtcOffset(to)}`,
      // A transition's DTSTART is the local time it happens at, read in the offset before it.
      `DTSTART:${formatLocalDateTime(at + from)}`,
      `END:${kind}`,
    );
  };
  const initial = offsetAt(zone, fromSec);
  observance(fromSec, initial, initial);
  for (const tr of zoneTransitions(zone, fromSec, toSec)) observance(tr.at, tr.from, tr.to);
  lines.push('END:VTIMEZONE');
  return lines.join('\r\n');
}

/** The range a zone's block is checked/built over: 1 Jan of the year before to 31 Dec of the year after. */
export function blockRange(range: ZoneRange): { fromSec: number; toSec: number } {
  const y0 = civilFromDays(Math.floor(range.minSec / DAY)).y - 1;
  const y1 = civilFromDays(Math.floor(range.maxSec / DAY)).y + 1;
  return { fromSec: daysFromCivil(y0, 1, 1) * DAY, toSec: daysFromCivil(y1 + 1, 1, 1) * DAY - 1 };
}

export interface VtimezoneResult {
  block: string;
  source: 'library' | 'generated';
}

const cache = new Map<string, VtimezoneResult>();

/** The VTIMEZONE (CRLF lines, no trailing CRLF) for `zone`, valid for every instant in `range`. */
export function vtimezone(zone: string, range: ZoneRange): VtimezoneResult {
  const { fromSec, toSec } = blockRange(range);
  const key = `${zone}\u0000${fromSec}\u0000${toSec}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let result: VtimezoneResult | undefined;
  const lib = tzlib_get_ical_block(zone);
  const text = Array.isArray(lib) ? lib[0] : undefined;
  if (text) {
    const def = readLibraryBlock(text);
    if (def && blockMatches(def, zone, fromSec, toSec)) {
      const block = text
        .replace(/\r?\n/g, '\r\n')
        .trim()
        .replace(/^TZID:.*$/m, `TZID:${zone}`)
        .replace(/^X-LIC-LOCATION:.*$/m, `X-LIC-LOCATION:${zone}`);
      result = { block, source: 'library' };
    }
  }
  result ??= { block: generatedBlock(zone, fromSec, toSec), source: 'generated' };
  if (cache.size > 1000) cache.clear();
  cache.set(key, result);
  return result;
}
