import { escape } from 'ical-generator';
import { describe, expect, it } from 'vitest';
import { generatedBlock } from '../../src/export/vtimezone.ts';
import { parseIcsText } from '../../src/ical/parse.ts';
import { unescapeText } from '../../src/ical/text.ts';
import {
  formatLocalDateTime,
  formatUtcOffset,
  parseDuration,
  parsePeriodList,
  parseTime,
  parseUtcOffset,
} from '../../src/ical/values.ts';
import { offsetFunction, onsets, readVTimezone } from '../../src/ical/vtimezone.ts';
import { parseContentLine } from '../../src/ical/contentline.ts';
import { daysFromCivil, offsetAt } from '../../src/model/timezones.ts';

// The iCalendar grammar in src/ical/ is shared by the import and the export: these pin its value
// readers and writers, and the VTIMEZONE reader both sides evaluate blocks with.

const utc = (iso: string): number => Date.parse(iso) / 1000;
const wall = (y: number, m: number, d: number, h = 0, mi = 0, s = 0): number => daysFromCivil(y, m, d) * 86_400 + h * 3600 + mi * 60 + s;

const BERLIN = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
].join('\r\n');

function readBlock(text: string) {
  const root = parseIcsText(text).roots.find((c) => c.name === 'VTIMEZONE');
  if (!root) throw new Error('no VTIMEZONE');
  return readVTimezone(root)[0];
}

describe('UTC-OFFSET values', () => {
  it('reads hours, minutes and seconds, signed, and the common -0000', () => {
    expect(parseUtcOffset('+0100')).toBe(3600);
    expect(parseUtcOffset('-0330')).toBe(-12_600);
    expect(parseUtcOffset('-075258')).toBe(-(7 * 3600 + 52 * 60 + 58));
    expect(parseUtcOffset('-0000') === 0).toBe(true); // -0, equal to 0 in every comparison
    expect(parseUtcOffset('UTC+1')).toBeUndefined();
  });

  it('writes what it reads: seconds only when there are any', () => {
    expect(formatUtcOffset(3600)).toBe('+0100');
    expect(formatUtcOffset(-12_600)).toBe('-0330');
    expect(formatUtcOffset(0)).toBe('+0000');
    expect(formatUtcOffset(2670)).toBe('+004430');
    for (const sec of [-43_200, -16_200, -1, 0, 1, 19_800, 20_700, 50_400]) expect(parseUtcOffset(formatUtcOffset(sec))).toBe(sec);
  });
});

describe('DATE, DATE-TIME, DURATION and PERIOD values', () => {
  it('reads a date, a UTC time, a time in a zone, and refuses an impossible date', () => {
    expect(parseTime('20250330')).toEqual({ kind: 'date', day: daysFromCivil(2025, 3, 30) });
    expect(parseTime('20250330T010000Z')).toEqual({ kind: 'utc', sec: utc('2025-03-30T01:00:00Z') });
    expect(parseTime('20250330T020000', 'Europe/Berlin')).toEqual({ kind: 'local', sec: wall(2025, 3, 30, 2), tzid: 'Europe/Berlin' });
    expect(parseTime('20171032')).toBeUndefined();
  });

  it('writes a floating DATE-TIME that reads back as the same wall time', () => {
    const sec = wall(2025, 3, 30, 2, 5, 9);
    expect(formatLocalDateTime(sec)).toBe('20250330T020509');
    expect(parseTime(formatLocalDateTime(sec))).toEqual({ kind: 'local', sec });
  });

  it('reads durations as nominal days plus exact seconds', () => {
    expect(parseDuration('P1W')).toEqual({ days: 7, seconds: 0 });
    expect(parseDuration('P1DT2H30M')).toEqual({ days: 1, seconds: 9000 });
    expect(parseDuration('-P2D')).toEqual({ days: -2, seconds: -0 });
    expect(parseDuration('PT')).toBeUndefined();
  });

  it('reads PERIOD lists with an end or a duration, and reports what it cannot read', () => {
    const p = parseContentLine('RDATE;VALUE=PERIOD:20250101T100000Z/20250101T120000Z,20250102T100000Z/PT1H,junk', 1)!;
    const { items, invalid } = parsePeriodList(p);
    expect(items).toEqual([
      { start: { kind: 'utc', sec: utc('2025-01-01T10:00:00Z') }, end: { kind: 'utc', sec: utc('2025-01-01T12:00:00Z') } },
      { start: { kind: 'utc', sec: utc('2025-01-02T10:00:00Z') }, duration: { days: 0, seconds: 3600 } },
    ]);
    expect(invalid).toEqual(['junk']);
  });
});

describe('TEXT values', () => {
  it('unescapes what ical-generator escapes (the export and the test-feed generator write with it)', () => {
    for (const s of ['Town Hall, 1 Main St; Springfield', 'C:\\new\\folder', 'two\nlines, and; more \\n literal']) {
      expect(unescapeText(escape(s, false))).toBe(s);
    }
  });
});

describe('VTIMEZONE reader', () => {
  it('lists the onsets of yearly rules as UTC instants with the offsets around them', () => {
    const def = readBlock(BERLIN);
    expect(def.tzid).toBe('Europe/Berlin');
    const in2025 = onsets(def, 2025, 2025).filter((o) => o.at >= utc('2025-01-01T00:00:00Z') && o.at < utc('2026-01-01T00:00:00Z'));
    expect(in2025).toEqual([
      { at: utc('2025-03-30T01:00:00Z'), from: 3600, to: 7200 },
      { at: utc('2025-10-26T01:00:00Z'), from: 7200, to: 3600 },
    ]);
    const f = offsetFunction(def, 2024, 2026)!;
    expect(f(utc('2025-03-30T00:59:59Z'))).toBe(3600);
    expect(f(utc('2025-03-30T01:00:00Z'))).toBe(7200);
  });

  it('reads back the blocks the export writes: same offsets as tzdata (São Paulo ended DST in 2019)', () => {
    const zone = 'America/Sao_Paulo';
    const from = utc('2017-01-01T00:00:00Z');
    const to = utc('2020-12-31T23:59:59Z');
    const f = offsetFunction(readBlock(generatedBlock(zone, from, to)), 2017, 2020)!;
    for (let t = from; t <= to; t += 86_400 * 7 + 3599) expect(f(t)).toBe(offsetAt(zone, t));
  });
});
