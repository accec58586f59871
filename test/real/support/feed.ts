import ical, { type VEvent } from 'node-ical';
import { expect } from 'vitest';
import { sameZone, siteUtc, type Json } from './site.ts';

/** One occurrence of a feed, as an independent parser (node-ical) reads it. */
export interface FeedOccurrence {
  uid: string;
  title: string;
  allDay: boolean;
  start: Date;
  end: Date;
  zone?: string;
  /** All-day: first and last day (DTEND is exclusive). */
  firstDay?: string;
  lastDay?: string;
  location?: string;
  organizer?: { name: string; email: string };
  categories: string[];
}

const pad = (n: number) => String(n).padStart(2, '0');
/** node-ical builds date-only values at local midnight. */
const localDay = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

export function feedOccurrences(text: string, from: Date, to: Date): FeedOccurrence[] {
  const out: FeedOccurrence[] = [];
  for (const e of Object.values(ical.sync.parseICS(text))) {
    if (!e || e.type !== 'VEVENT') continue;
    const v = e as VEvent;
    const allDay = v.datetype === 'date';
    const duration = (v.end as Date).getTime() - (v.start as Date).getTime();
    const starts = v.rrule ? v.rrule.between(from, to, true) : [v.start as Date];
    const org = v.organizer as unknown as { params?: { CN?: string }; val?: string } | undefined;
    for (const start of starts) {
      const end = new Date(start.getTime() + duration);
      out.push({
        uid: v.uid,
        title: String(v.summary),
        allDay,
        start,
        end,
        zone: allDay ? undefined : ((v.start as Date & { tz?: string }).tz ?? 'UTC'),
        firstDay: allDay ? localDay(start) : undefined,
        lastDay: allDay ? localDay(new Date(end.getTime() - 86_400_000)) : undefined,
        location: v.location ? String(v.location) : undefined,
        organizer: org?.val ? { name: String(org.params?.CN ?? '').replace(/^"|"$/g, ''), email: org.val.replace(/^mailto:/i, '') } : undefined,
        categories: (v.categories ?? []).map(String),
      });
    }
  }
  return out.filter((o) => o.start >= from && o.start <= to);
}

/** The wall time of an instant in a zone, as TEC writes start_date ("YYYY-MM-DD HH:MM:SS"). */
export function wallTime(d: Date, zone: string): string {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(d).map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** The fixture feeds' calendar zone (their one VTIMEZONE). */
export const CALENDAR_ZONE = 'Europe/Berlin';

/** The site's event for a feed occurrence: same title and same first instant (all-day: same first day). */
export function findOnSite(site: Json[], o: FeedOccurrence): Json | undefined {
  return site.find((e) => e.title === o.title && (o.allDay ? e.all_day && String(e.start_date).slice(0, 10) === o.firstDay : siteUtc(e.utc_start_date) === o.start.getTime()));
}

/**
 * Field by field: instants, zone (and the wall time in it), all-day dates, venue (name + address
 * = LOCATION), organizer (CN + email), and the terms (categories, or tags with --categories-as tags).
 */
export function expectEventMatches(e: Json, o: FeedOccurrence, terms: 'categories' | 'tags' = 'categories', calendarZone = CALENDAR_ZONE): void {
  const what = `${o.uid} @ ${o.start.toISOString()}`;
  expect(e.all_day, what).toBe(o.allDay);
  if (o.allDay) {
    expect(String(e.start_date).slice(0, 10), what).toBe(o.firstDay);
    expect(String(e.end_date).slice(0, 10), what).toBe(o.lastDay);
  } else {
    expect(siteUtc(e.utc_start_date), what).toBe(o.start.getTime());
    expect(siteUtc(e.utc_end_date), what).toBe(o.end.getTime());
    // UTC times (…Z) are shown in the calendar's zone (src/sources/ics/zones.ts: X-WR-TIMEZONE, else
    // the file's one VTIMEZONE); the instant is what must not move.
    const zone = sameZone(o.zone!) === 'UTC' ? calendarZone : o.zone!;
    expect(sameZone(e.timezone), what).toBe(sameZone(zone));
    expect(e.start_date, what).toBe(wallTime(o.start, zone));
    expect(e.end_date, what).toBe(wallTime(o.end, zone));
  }
  if (o.location) expect([e.venue?.venue, e.venue?.address].filter(Boolean).join(', '), what).toBe(o.location);
  else expect(e.venue?.id, what).toBeUndefined();
  const orgs = (Array.isArray(e.organizer) ? e.organizer : []) as Json[];
  expect(orgs.map((x) => ({ name: x.organizer, email: x.email })), what).toEqual(o.organizer ? [o.organizer] : []);
  const names = (list: Json[] | undefined) => (list ?? []).map((t) => t.name).sort();
  expect(names(e[terms]), what).toEqual([...o.categories].sort());
  expect(names(e[terms === 'categories' ? 'tags' : 'categories']), what).toEqual([]);
}
