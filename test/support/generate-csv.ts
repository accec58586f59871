import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { prng } from '../../src/util/random.ts';

/**
 * A seeded, streamed generator of The Events Calendar-style event CSVs for tests and benchmarks.
 * Rows are produced lazily in ~64 KB chunks, so 100k rows (≈25 MB) never sit in memory.
 *
 * Every row has a unique title (no duplicate identities), MM/DD/YYYY dates with days above 12 (so
 * the date order is detectable), several zones (IANA and `UTC+2`), venues, organizers, categories,
 * multi-byte text (é, ü, ł, 東京, 🎉), and now and then a quoted description with an embedded
 * line break and doubled quotes. With `bad: true`, every 1000th row (index 999, 1999, …) is broken
 * in one of five ways (see BAD_KINDS); `badRowCount(rows)` says how many that is.
 */

export interface GenerateOptions {
  rows: number;
  seed?: number;
  /** Break every 1000th row. */
  bad?: boolean;
}

export const GENERATED_HEADERS = [
  'Event Name', 'Event Description', 'Event Start Date', 'Event Start Time', 'Event End Date', 'Event End Time',
  'All Day Event', 'Event Time Zone', 'Event Venue Name', 'Venue City', 'Event Organizer Name', 'Event Cost',
  'Event Currency Symbol', 'Event Category', 'Event Tags', 'Event Website', 'Event Featured',
];

export const BAD_KINDS = ['impossible-date', 'bad-boolean', 'ragged', 'bad-zone', 'no-title'] as const;

export function badRowCount(rows: number, bad = true): number {
  return bad ? Math.floor(rows / 1000) : 0;
}


const ADJECTIVES = ['Open', 'Late', 'Grand', 'Quiet', 'Spring', 'Café', 'Über', 'Łódź', '東京', 'Summer', 'Winter', 'Jazz'];
const NOUNS = ['Concert', 'Meetup', 'Market', 'Reading', 'Workshop', 'Festival', 'Screening', 'Tour', 'Talk', 'Fair 🎉'];
const VENUES = [['Town Hall', 'Springfield'], ['Zürich Kongresshaus', 'Zürich'], ['Salle Pleyel', 'Paris'], ['Budokan', '東京'], ['Library, Main Branch', 'Boston']];
const ORGANIZERS = ['Arts Council', 'Jazz Club', 'Müller & Söhne', 'Friends of the Library', 'Jan Kowalski; Anna Nowak'];
const CATEGORIES = ['Music', 'Family', 'Talks, Lectures', 'Outdoors', 'Food & Drink'];
const ZONES = ['America/New_York', 'Europe/Berlin', 'Asia/Tokyo', 'UTC', 'UTC+2', 'Australia/Sydney', 'America/Los_Angeles'];

function cell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

const pad = (n: number): string => String(n).padStart(2, '0');

function usDate(t: Date): string {
  return `${pad(t.getUTCMonth() + 1)}/${pad(t.getUTCDate())}/${t.getUTCFullYear()}`;
}

function clock(t: Date, twelveHour: boolean): string {
  const h = t.getUTCHours();
  const m = pad(t.getUTCMinutes());
  if (!twelveHour) return `${pad(h)}:${m}:00`;
  return `${h % 12 === 0 ? 12 : h % 12}:${m} ${h < 12 ? 'AM' : 'PM'}`;
}

function row(i: number, rand: () => number, bad: boolean): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const start = new Date(Date.UTC(2025, 0, 1) + Math.floor(rand() * 365) * 86_400_000 + (8 + Math.floor(rand() * 14)) * 3_600_000 + pick([0, 15, 30, 45]) * 60_000);
  const end = new Date(start.getTime() + (1 + Math.floor(rand() * 4)) * 3_600_000);
  const allDay = rand() < 0.1;
  const [venue, city] = pick(VENUES);
  const twelveHour = rand() < 0.5;
  const description = rand() < 0.2 ? `Doors open early.\nBring a "friend" and a ""spare"" chair, ${i}.` : `Event number ${i}, all welcome.`;
  const fields = [
    `${pick(ADJECTIVES)} ${pick(NOUNS)} #${i}`,
    description,
    usDate(start),
    allDay ? '' : clock(start, twelveHour),
    usDate(end),
    allDay ? '' : clock(end, twelveHour),
    allDay ? pick(['TRUE', 'Yes', '1']) : pick(['FALSE', 'No', '0', '']),
    pick(ZONES),
    venue!,
    city!,
    pick(ORGANIZERS),
    rand() < 0.3 ? '' : String(5 + Math.floor(rand() * 60)),
    pick(['$', '€', '']),
    pick(CATEGORIES),
    rand() < 0.5 ? 'generated; bench' : '',
    `https://example.org/events/${i}`,
    pick(['', 'yes', 'no']),
  ];
  if (bad && i % 1000 === 999) {
    switch (BAD_KINDS[Math.floor(i / 1000) % BAD_KINDS.length]) {
      case 'impossible-date':
        fields[2] = `02/31/2025`;
        break;
      case 'bad-boolean':
        fields[6] = 'maybe';
        break;
      case 'ragged':
        // More cells than the header (a short row is read with empty trailing cells, not refused).
        fields.push('extra', 'cells');
        break;
      case 'bad-zone':
        fields[7] = 'Mars/Olympus_Mons';
        break;
      case 'no-title':
        fields[0] = '';
        break;
    }
  }
  return fields.map(cell).join(',');
}

/** A byte stream of `rows` data rows after the header, UTF-8, LF. */
export function generateEventsCsv({ rows, seed = 1, bad = false }: GenerateOptions): Readable {
  function* chunks(): Generator<Buffer> {
    const rand = prng(seed);
    let buf = `${GENERATED_HEADERS.map(cell).join(',')}\n`;
    for (let i = 0; i < rows; i++) {
      buf += `${row(i, rand, bad)}\n`;
      if (buf.length >= 64 * 1024) {
        yield Buffer.from(buf, 'utf8');
        buf = '';
      }
    }
    if (buf) yield Buffer.from(buf, 'utf8');
  }
  return Readable.from(chunks(), { objectMode: false });
}

export async function writeEventsCsv(path: string, opts: GenerateOptions): Promise<void> {
  await pipeline(generateEventsCsv(opts), fs.createWriteStream(path));
}
