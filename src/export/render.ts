import ical, { escape, foldLines, ICalCalendarMethod, ICalEvent, ICalEventStatus, type ICalEventData } from 'ical-generator';
import { eventVenue, type EventRecord, type OrganizerRecord, type VenueRecord } from '../api/index.ts';
import { parseDuration } from '../ical/values.ts';
import { webUrl } from '../model/html.ts';
import { ExportParamsError } from './errors.ts';
import { altHtml, hasMarkup, plainText, plainTitle } from './text.ts';
import { eventTiming, wallSeconds } from './timing.ts';
import { dayInstant, IcsInstant } from './instant.ts';
import { vtimezone, type ZoneRange } from './vtimezone.ts';

/**
 * Site records → iCalendar text, with ical-generator 11 for the calendar properties and each
 * VEVENT, and vtimezone.ts for the VTIMEZONE blocks.
 *
 * Output is deterministic: the same records give the same bytes (so ETags change only with
 * content). Nothing depends on the clock or the host time zone: DTSTAMP comes from the record's
 * `modified_utc`, events are sorted by start instant then id, and every date goes to
 * ical-generator as a zone-aware IcsInstant (its Luxon-compatible input; a native Date plus a
 * timezone would be rendered in the HOST's wall clock, LIBRARIES §3). No calendar-level timezone
 * is set on ical-generator: that would turn
 * DTSTAMP/LAST-MODIFIED into floating times; X-WR-TIMEZONE is written as a plain property instead.
 *
 * A feed is assembled from parts so that large exports can render each event as its page arrives
 * and keep only the text: `renderEvent` → sort with `compareRendered` → `icsParts`.
 */

export interface RenderOptions {
  /** Feed name (`[a-z0-9-]+`). */
  name: string;
  lang: string;
  /** Host used in UIDs: `<event id>@<siteHost>`. */
  siteHost: string;
  /** ISO 8601 duration for REFRESH-INTERVAL and X-PUBLISHED-TTL; default PT1H. */
  refreshInterval?: string;
  /** X-WR-CALNAME; default `<name> (<lang>)`. */
  calendarName?: string;
}

/** One event, rendered and folded, with what the calendar around it needs to know. */
export interface RenderedEvent {
  id: number;
  /** Start instant (UTC seconds): the sort key, with `id`. */
  startSec: number;
  endSec: number;
  /** The TZID used by DTSTART/DTEND, or null for UTC/all-day times. */
  zone: string | null;
  /** `BEGIN:VEVENT` … `END:VEVENT\r\n`, folded at 75 octets. */
  text: string;
}

export const DEFAULT_REFRESH_INTERVAL = 'PT1H';

/**
 * SEQUENCE must grow with every revision (RFC 5545 §3.8.7.4). The site has no revision counter,
 * so it is derived from `modified_utc`: seconds since 2020-01-01T00:00:00Z. That is monotonic at the
 * site's one-second resolution and stays inside iCalendar's 32-bit INTEGER until 2088 (epoch
 * seconds would overflow it in 2038). Records without a readable `modified_utc` get 0.
 */
const SEQUENCE_EPOCH = Date.UTC(2020, 0, 1) / 1000;

/**
 * ISO 8601 duration (`PT1H`, `P1D`, `P1W`, `PT90M`) → seconds; throws ExportParamsError. Read with the
 * iCalendar DURATION grammar, kept to its unsigned upper-case form (what REFRESH-INTERVAL writes).
 */
export function durationSeconds(iso: string): number {
  const d = /^P[\dWDTHMS]*$/.test(iso.trim()) ? parseDuration(iso) : undefined;
  if (!d) throw new ExportParamsError('refreshInterval', `"${iso}" is not an ISO 8601 duration such as PT1H or P1D`);
  const total = d.days * 86_400 + d.seconds;
  if (total <= 0) throw new ExportParamsError('refreshInterval', `"${iso}" must be longer than zero`);
  return total;
}

const utc = (sec: number): IcsInstant => new IcsInstant(sec);

/** `Town Hall, 1 Main St, Springfield, NY, 12345, United States`: the fields the venue has, in address order. */
export function venueLocation(v: VenueRecord): string {
  const region = v.stateprovince || v.state || v.province;
  return [v.venue, v.address, v.city, region, v.zip, v.country]
    .map((p) => (p ? plainTitle(String(p)) : ''))
    .filter((p, i, all) => p !== '' && all.indexOf(p) === i)
    .join(', ');
}

/** Venue coordinates when both are numbers in range; the site sends them as numbers or strings. */
export function venueGeo(v: VenueRecord): { lat: number; lon: number } | undefined {
  if (v.geo_lat === undefined || v.geo_lng === undefined || v.geo_lat === '' || v.geo_lng === '') return undefined;
  const lat = Number(v.geo_lat);
  const lon = Number(v.geo_lng);
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return undefined;
  // ical-generator skips GEO when a coordinate is 0; the equator and Greenwich are rare enough for events.
  return { lat, lon };
}

const EMAIL = /^[^\s@<>"]+@[^\s@<>"]+$/;

function organizerName(o: OrganizerRecord): string {
  return plainTitle(o.organizer ?? '') || o.email || `organizer ${o.id}`;
}

/**
 * RFC 5545 allows one ORGANIZER per VEVENT, so the first organizer with an email becomes the
 * ORGANIZER (CN + mailto) and every other organizer becomes a CONTACT line ("Name <email>, phone"),
 * so none is lost and the file stays valid for strict parsers.
 */
function organizerParts(list: OrganizerRecord[]): { organizer?: { name: string; email: string }; contacts: string[] } {
  const lead = list.find((o) => o.email && EMAIL.test(o.email.trim()));
  const contacts = list
    .filter((o) => o !== lead)
    .map((o) => {
      const email = o.email?.trim();
      return [organizerName(o) + (email ? ` <${email}>` : ''), o.phone?.trim()].filter(Boolean).join(', ');
    });
  return { organizer: lead ? { name: organizerName(lead), email: lead.email!.trim() } : undefined, contacts };
}

// A calendar for ICalEvent to belong to. It has no timezone, so DTSTAMP/LAST-MODIFIED/CREATED are UTC.
const scratch = ical();

/** One record → one folded VEVENT. Throws EventRenderError when its dates cannot be read. */
export function renderEvent(rec: EventRecord, opts: Pick<RenderOptions, 'siteHost'>): RenderedEvent {
  const t = eventTiming(rec);
  const modified = wallSeconds(rec.modified_utc);
  const created = wallSeconds(rec.date_utc);
  const stamp = modified ?? created ?? SEQUENCE_EPOCH;

  const data: ICalEventData = {
    // Stable for the event's life: no dates in it, so a rescheduled event stays one event in
    // subscribers' calendars (TEC's own iCal export writes `<id>-<start>-<end>@host` UIDs, which duplicate them).
    // Post ids are unique across languages (WPML translations are separate posts), so per-language
    // feeds never share a UID.
    id: `${rec.id}@${opts.siteHost}`,
    sequence: modified !== undefined ? Math.max(0, modified - SEQUENCE_EPOCH) : 0,
    stamp: utc(stamp),
    lastModified: modified !== undefined ? utc(modified) : null,
    created: created !== undefined ? utc(created) : null,
    summary: plainTitle(rec.title),
    status: ICalEventStatus.CONFIRMED,
    ...(t.allDay
      ? { allDay: true, start: dayInstant(t.startDay), end: dayInstant(t.endDayExclusive) }
      : // With a timezone ical-generator re-zones the instant (setZone) and writes TZID + wall time.
        { start: utc(t.startSec), end: utc(t.endSec), timezone: t.zone }),
  };

  const html = rec.description ?? '';
  const plain = plainText(html) || plainText(rec.excerpt ?? '');
  const alt = plain && hasMarkup(html) ? altHtml(html) : '';
  if (plain) data.description = alt ? { plain, html: alt } : { plain };

  const venue = eventVenue(rec);
  if (venue) {
    const title = venueLocation(venue);
    const geo = venueGeo(venue);
    if (title) data.location = geo ? { title, geo } : { title };
  }

  const { organizer, contacts } = organizerParts(rec.organizer ?? []);
  if (organizer) data.organizer = organizer;

  const categories = (rec.categories ?? []).map((c) => plainTitle(c.name)).filter(Boolean);
  if (categories.length) data.categories = categories.map((name) => ({ name }));
  // Links only as http(s), as the imports accept them (webUrl): calendar apps make URL and ATTACH
  // clickable, and a `javascript:` or `data:` value from the site must not reach subscribers.
  const url = webUrl(rec.url);
  if (url) data.url = url;
  const image = webUrl(rec.image && typeof rec.image === 'object' ? rec.image.url : undefined);
  if (image) data.attachments = [image];

  let text = new ICalEvent(data, scratch).toString();
  if (contacts.length) {
    const lines = contacts.map((c) => `CONTACT:${escape(c, false)}\r\n`).join('');
    text = text.replace(/END:VEVENT\r\n$/, `${lines}END:VEVENT\r\n`);
  }
  return { id: rec.id, startSec: t.startSec, endSec: t.endSec, zone: t.zone, text: foldLines(text) };
}

/** Feed order: start instant, then id. */
export function compareRendered(a: Pick<RenderedEvent, 'startSec' | 'id'>, b: Pick<RenderedEvent, 'startSec' | 'id'>): number {
  return a.startSec - b.startSec || a.id - b.id;
}

/** What the calendar head needs from the events: zones with the instants they cover. */
export class ZoneUsage {
  readonly ranges = new Map<string, ZoneRange & { count: number }>();

  add(ev: Pick<RenderedEvent, 'zone' | 'startSec' | 'endSec'>): void {
    if (!ev.zone) return;
    const r = this.ranges.get(ev.zone);
    if (!r) this.ranges.set(ev.zone, { minSec: ev.startSec, maxSec: ev.endSec, count: 1 });
    else {
      r.minSec = Math.min(r.minSec, ev.startSec);
      r.maxSec = Math.max(r.maxSec, ev.endSec);
      r.count++;
    }
  }

  /** X-WR-TIMEZONE: the zone most timed events use (ties by name), UTC when none. */
  mainZone(): string {
    let best: [string, number] | undefined;
    for (const [zone, r] of this.ranges) {
      if (!best || r.count > best[1] || (r.count === best[1] && zone < best[0])) best = [zone, r.count];
    }
    return best?.[0] ?? 'UTC';
  }
}

/** VCALENDAR head: properties, then one VTIMEZONE per zone (sorted by name). Ends with CRLF. */
export function calendarHead(opts: RenderOptions, zones: ZoneUsage): string {
  const ttl = durationSeconds(opts.refreshInterval ?? DEFAULT_REFRESH_INTERVAL);
  const cal = ical({
    prodId: { company: 'calsync', product: 'calsync ICS export', language: opts.lang.toUpperCase() },
    name: opts.calendarName ?? `${opts.name} (${opts.lang})`,
    method: ICalCalendarMethod.PUBLISH,
    scale: 'GREGORIAN',
    ttl,
    x: [['X-WR-TIMEZONE', zones.mainZone()]],
  });
  // With no events, ical-generator writes every calendar property and then END:VCALENDAR.
  const props = cal.toString().replace(/END:VCALENDAR$/, '');
  const blocks = [...zones.ranges.keys()]
    .sort()
    .map((zone) => vtimezone(zone, zones.ranges.get(zone)!).block + '\r\n');
  return props + foldLines(blocks.join(''));
}

/** RFC 5545 ends every content line, the last one included, with CRLF (TEC's feed does not). */
export const CALENDAR_TAIL = 'END:VCALENDAR\r\n';

/** The feed as a sequence of strings (head, each VEVENT in order, tail); `events` must be sorted. */
export function* icsParts(opts: RenderOptions, events: readonly RenderedEvent[], zones?: ZoneUsage): Generator<string> {
  let usage = zones;
  if (!usage) {
    usage = new ZoneUsage();
    for (const ev of events) usage.add(ev);
  }
  yield calendarHead(opts, usage);
  for (const ev of events) yield ev.text;
  yield CALENDAR_TAIL;
}

/**
 * Fixed records → the complete feed text. Every record is rendered (no window, no filter); a record
 * whose dates cannot be read throws EventRenderError. `runIcsExport` renders the same way but reports
 * and skips such records instead.
 */
export function renderIcs(events: EventRecord[], opts: RenderOptions): string {
  const rendered = events.map((rec) => renderEvent(rec, opts)).sort(compareRendered);
  return [...icsParts(opts, rendered)].join('');
}
