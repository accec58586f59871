import { escape } from 'ical-generator';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { civilFromDays, daysFromCivil } from '../../src/model/timezones.ts';
import { prng as rng } from '../../src/util/random.ts';

/**
 * Seeded synthetic ICS feed for tests and benchmarks: VEVENTs across several zones, a share of weekly
 * series with COUNT or UNTIL, an EXDATE and a moved override each, all-day events, a pool of venues
 * (LOCATION with escaped commas, GEO) and organizers, categories, folded long descriptions with escapes
 * and non-ASCII text. The same options always give the same bytes.
 */
export interface GenerateIcsOptions {
  /** Number of VEVENT components (masters + overrides). */
  events: number;
  seed?: number;
  /** Share (0..1) of masters that are weekly series. Default 0.1. */
  recurringShare?: number;
  /** IANA zones to spread events over. */
  zones?: string[];
  /** First day events start on. Default 2025-01-06. */
  start?: Date;
  /** Days single events spread over. Default 365. */
  days?: number;
  /** Embed VTIMEZONE blocks (from timezones-ical-library). Default true. */
  vtimezones?: boolean;
  /** Share (0..1) of single events that are all-day. Default 0.1. */
  allDayShare?: number;
}


const WORDS = ['Konzert', 'Lesung', 'Workshop', 'Führung', 'Vortrag', 'Markt', 'Café', 'Jazz', 'Theater', 'Kino', 'Tanz',
  'Ausstellung', 'Kinder', 'Familie', 'Natur', 'Stadt', 'Musik', 'Kunst', 'Geschichte', 'Wein', 'Straßenfest', 'Atelier',
  'Chor', 'Orgel', 'Rundgang', 'Begegnung', 'Sprachcafé', 'Repair', 'Yoga', 'Lauf', 'Flohmarkt', 'Élan', 'Niño'];
const CATS = ['Musik', 'Kultur', 'Sport', 'Kinder & Familie', 'Bildung', 'Natur, Umwelt', 'Märkte', 'Theater'];
const STREETS = ['Hauptstraße', 'Marktplatz', 'Bahnhofstraße', 'Schillerweg', 'Am Hafen', 'Lindenallee', 'Kirchgasse'];
const CITIES = ['10115 Berlin', '20095 Hamburg', '80331 München', '50667 Köln', '04109 Leipzig', '01067 Dresden'];
const ORGS = ['Kulturamt', 'Stadtbibliothek', 'Verein Blau-Weiß', 'Musikschule', 'Volkshochschule', 'Jugendzentrum'];

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

function wall(day: number, minutes: number): string {
  const { y, m, d } = civilFromDays(day);
  return `${pad(y, 4)}${pad(m)}${pad(d)}T${pad(Math.floor(minutes / 60))}${pad(minutes % 60)}00`;
}

function date(day: number): string {
  const { y, m, d } = civilFromDays(day);
  return `${pad(y, 4)}${pad(m)}${pad(d)}`;
}

/** Fold at 75 octets without splitting a character. */
function fold(line: string): string {
  if (line.length <= 25 || Buffer.byteLength(line) <= 75) return line;
  const out: string[] = [];
  let cur = '';
  let bytes = 0;
  let limit = 75;
  for (const ch of line) {
    const b = ch.length > 1 ? 4 : ch.charCodeAt(0) < 0x80 ? 1 : ch.charCodeAt(0) < 0x800 ? 2 : 3;
    if (bytes + b > limit) {
      out.push(cur);
      cur = ' ';
      bytes = 1;
      limit = 75;
    }
    cur += ch;
    bytes += b;
  }
  out.push(cur);
  return out.join('\r\n');
}

export function generateIcsFeed(opts: GenerateIcsOptions): string {
  const rand = rng(opts.seed ?? 1);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)];
  const zones = opts.zones?.length ? opts.zones : ['Europe/Berlin', 'America/New_York', 'Europe/London', 'Asia/Tokyo', 'Australia/Sydney'];
  const s = opts.start ?? new Date(Date.UTC(2025, 0, 6));
  const day0 = daysFromCivil(s.getUTCFullYear(), s.getUTCMonth() + 1, s.getUTCDate());
  const spread = opts.days ?? 365;
  const recurringShare = opts.recurringShare ?? 0.1;
  const allDayShare = opts.allDayShare ?? 0.1;

  const lines: string[] = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync//generator//EN', 'CALSCALE:GREGORIAN',
    'X-WR-CALNAME:Synthetic feed', `X-WR-TIMEZONE:${zones[0]}`];
  if (opts.vtimezones ?? true) {
    for (const z of zones) {
      const block = tzlib_get_ical_block(z);
      if (Array.isArray(block) && block[0]) lines.push(...block[0].split(/\r?\n/));
    }
  }
  const venues = Array.from({ length: 200 }, (_, i) => ({
    name: `${pick(WORDS)}haus ${i + 1}`,
    street: `${pick(STREETS)} ${1 + Math.floor(rand() * 120)}`,
    city: pick(CITIES),
    lat: 47 + rand() * 8,
    lng: 6 + rand() * 9,
  }));
  const orgs = Array.from({ length: 60 }, (_, i) => ({ name: `${pick(ORGS)} ${i + 1}`, email: `team${i + 1}@example.org` }));

  let written = 0;
  let n = 0;
  while (written < opts.events) {
    n++;
    const uid = `g${opts.seed ?? 1}-${n}@calsync`;
    const zone = pick(zones);
    const v = pick(venues);
    const org = pick(orgs);
    const title = `${pick(WORDS)} ${pick(WORDS).toLowerCase()} ${n}`;
    // Sized like real feeds: about 20 MB per 60k VEVENTs, not every property on every event.
    const desc = `${Array.from({ length: 2 + Math.floor(rand() * 5) }, () => pick(WORDS).toLowerCase()).join(' ')}.${rand() < 0.3 ? '\nEintritt frei, bitte anmelden' : ''}`;
    const common = [`UID:${uid}`, 'DTSTAMP:20250101T000000Z', `SUMMARY:${escape(title, false)}`, `LOCATION:${escape(`${v.name}, ${v.street}, ${v.city}`, false)}`];
    if (rand() < 0.6) common.push(`DESCRIPTION:${escape(desc, false)}`);
    if (rand() < 0.4) common.push(`GEO:${v.lat.toFixed(4)};${v.lng.toFixed(4)}`);
    if (rand() < 0.5) common.push(`ORGANIZER;CN="${org.name}":mailto:${org.email}`);
    if (rand() < 0.7) common.push(`CATEGORIES:${[pick(CATS), pick(CATS)].map((c) => escape(c, false)).join(',')}`);
    if (rand() < 0.2) common.push(`URL:https://example.org/e/${n}`);
    const minutes = 8 * 60 + Math.floor(rand() * 48) * 15;
    const len = 30 + Math.floor(rand() * 8) * 15;
    const recurring = rand() < recurringShare && written + 2 <= opts.events;
    const day = day0 + Math.floor(rand() * (recurring ? 60 : spread));
    lines.push('BEGIN:VEVENT', ...common);
    if (recurring) {
      const count = 10 + Math.floor(rand() * 30);
      lines.push(`DTSTART;TZID=${zone}:${wall(day, minutes)}`, `DTEND;TZID=${zone}:${wall(day, minutes + len)}`);
      lines.push(rand() < 0.5 ? `RRULE:FREQ=WEEKLY;COUNT=${count}` : `RRULE:FREQ=WEEKLY;UNTIL=${wall(day + 7 * count, 0)}Z`);
      lines.push(`EXDATE;TZID=${zone}:${wall(day + 14, minutes)}`, 'END:VEVENT');
      // Override: the 4th instance moves one day later and gets a new title.
      lines.push('BEGIN:VEVENT', ...common.map((l) => (l.startsWith('SUMMARY:') ? `SUMMARY:${escape(`${title} (verlegt)`, false)}` : l)),
        `RECURRENCE-ID;TZID=${zone}:${wall(day + 21, minutes)}`, `DTSTART;TZID=${zone}:${wall(day + 22, minutes)}`,
        `DTEND;TZID=${zone}:${wall(day + 22, minutes + len)}`, 'SEQUENCE:1', 'END:VEVENT');
      written += 2;
    } else if (rand() < allDayShare) {
      lines.push(`DTSTART;VALUE=DATE:${date(day)}`, `DTEND;VALUE=DATE:${date(day + 1 + Math.floor(rand() * 3))}`, 'END:VEVENT');
      written++;
    } else {
      lines.push(`DTSTART;TZID=${zone}:${wall(day, minutes)}`, `DTEND;TZID=${zone}:${wall(day, minutes + len)}`, 'END:VEVENT');
      written++;
    }
  }
  lines.push('END:VCALENDAR');
  return lines.map(fold).join('\r\n') + '\r\n';
}
