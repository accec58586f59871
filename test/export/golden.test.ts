import { describe, expect, it } from 'vitest';
import { renderIcs } from '../../src/export/index.ts';
import { EXPECTED, FIXTURES } from './fixtures.ts';
import { checkStructure, expectGolden, localDay, parseEvents } from './support.ts';

const HOST = 'events.example.org';

describe('ICS rendering (golden files)', () => {
  const basic = renderIcs(FIXTURES, { name: 'city', lang: 'en', siteHost: HOST });

  it('renders the fixture set exactly as golden/basic.en.ics', () => {
    expectGolden('basic.en.ics', basic);
  });

  it('renders options (refresh interval, calendar name, language) as golden/options.fr.ics', () => {
    const text = renderIcs(FIXTURES.slice(0, 3), { name: 'ville', lang: 'fr', siteHost: HOST, refreshInterval: 'PT30M', calendarName: 'Événements de la ville' });
    expectGolden('options.fr.ics', text);
    expect(text).toContain('REFRESH-INTERVAL;VALUE=DURATION:PT30M\r\n');
    expect(text).toContain('X-PUBLISHED-TTL:PT30M\r\n');
    expect(text).toContain('X-WR-CALNAME:Événements de la ville\r\n');
    expect(text).toContain('PRODID:-//calsync//calsync ICS export//FR\r\n');
  });

  it('is deterministic: input order and repeated renders give the same bytes', () => {
    const shuffled = [...FIXTURES].reverse();
    expect(renderIcs(shuffled, { name: 'city', lang: 'en', siteHost: HOST })).toBe(basic);
  });

  it('is structurally sound (CRLF, folding, TZIDs backed by VTIMEZONEs, no floating times, unique UIDs)', () => {
    checkStructure(basic);
    expect(basic).toMatch(/^BEGIN:VCALENDAR\r\nVERSION:2\.0\r\nPRODID:/);
    expect(basic).toContain('X-WR-CALNAME:city (en)\r\n');
    expect(basic).toContain('REFRESH-INTERVAL;VALUE=DURATION:PT1H\r\nX-PUBLISHED-TTL:PT1H\r\n');
    expect(basic).toMatch(/X-WR-TIMEZONE:(America\/New_York|Europe\/Berlin)\r\n/);
    // One VTIMEZONE per zone used by timed events, none for all-day (Paris) or UTC events.
    const zones = [...basic.matchAll(/^TZID:(.+)\r$/gm)].map((m) => m[1]).sort();
    expect(zones).toEqual(['America/New_York', 'America/Sao_Paulo', 'Asia/Tokyo', 'Europe/Berlin']);
  });

  it('uses the library VTIMEZONE when it fits and real transitions when the rules changed (São Paulo 2018)', () => {
    const block = (tz: string) => /BEGIN:VTIMEZONE\r\nTZID:([^\r]+)\r\n[\s\S]*?END:VTIMEZONE/g.exec(basic.slice(basic.indexOf(`TZID:${tz}`) - 'BEGIN:VTIMEZONE\r\n'.length))![0];
    expect(block('Europe/Berlin')).toContain('RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU');
    const sp = block('America/Sao_Paulo');
    expect(sp).not.toContain('RRULE');
    expect(sp).toContain('TZOFFSETFROM:-0300\r\nTZOFFSETTO:-0200\r\nDTSTART:20181104T000000');
  });

  it('writes the VEVENT properties the issue asks for', () => {
    const unfolded = basic.replace(/\r\n[ \t]/g, '');
    const concert = unfolded.slice(unfolded.indexOf('UID:4711@'), unfolded.indexOf('END:VEVENT', unfolded.indexOf('UID:4711@')));
    expect(concert).toContain('SUMMARY:Spring Concert – Bach & Brahms');
    expect(concert).toContain('DTSTART;TZID=America/New_York:20250321T193000');
    expect(concert).toContain('DTEND;TZID=America/New_York:20250321T213000');
    expect(concert).toContain('DTSTAMP:20250201T210005Z');
    expect(concert).toContain('LAST-MODIFIED:20250201T210005Z');
    expect(concert).toContain('CREATED:20250110T141200Z');
    // seconds from 2020-01-01T00:00:00Z to modified_utc
    expect(concert).toContain(`SEQUENCE:${(Date.UTC(2025, 1, 1, 21, 0, 5) - Date.UTC(2020, 0, 1)) / 1000}`);
    expect(concert).toContain('LOCATION:Town Hall\\, 1 Main St\\, Springfield\\, NY\\, 12345\\, United States');
    expect(concert).toContain('GEO:42.1015;-72.5898');
    expect(concert).toContain('ORGANIZER;CN="Arts Council":mailto:info@example.org');
    expect(concert).toContain('CONTACT:Friends of "Music" <friends@example.org>\\, +1 555 0100');
    expect(concert).toContain('CATEGORIES:Music,Concerts & Recitals');
    expect(concert).toContain('URL;VALUE=URI:https://events.example.org/event/event-4711/');
    expect(concert).toContain('ATTACH:https://events.example.org/wp-content/uploads/2025/01/poster.jpg');
    expect(concert).toContain('STATUS:CONFIRMED');
    expect(concert).toContain('X-ALT-DESC;FMTTYPE=text/html:<p>An evening of <strong>');
    expect(concert).toMatch(/DESCRIPTION:An evening of chamber music\\; tickets at the door\\, cash only\.\\n\\n \* Bach: Suite No\. 1\\n \* Brahms: Sonata\\n\\nMore at the box office \[https:\/\/tickets\.example\.org\/spring\] & online\./);
    const festival = unfolded.slice(unfolded.indexOf('UID:4713@'));
    expect(festival).toMatch(/^UID:4713@events\.example\.org\r\n[\s\S]*?DTSTART;VALUE=DATE:20240501\r\nDTEND;VALUE=DATE:20240504\r\n/);
  });

  it('round-trips through node-ical: instants, all-day spans, TZIDs, text, location, categories', () => {
    const parsed = parseEvents(basic);
    expect(parsed.size).toBe(FIXTURES.length);
    for (const rec of FIXTURES) {
      const ev = parsed.get(`${rec.id}@${HOST}`);
      expect(ev, `event ${rec.id}`).toBeDefined();
      const want = EXPECTED[rec.id];
      const start = ev!.start as Date & { tz?: string; dateOnly?: boolean };
      const end = ev!.end as Date & { tz?: string; dateOnly?: boolean };
      if (want.allDay) {
        expect(start.dateOnly, `${rec.id} all-day`).toBe(true);
        expect([localDay(start), localDay(end)], `${rec.id} span`).toEqual(want.allDay);
      } else {
        expect(start.toISOString().replace('.000', ''), `${rec.id} start`).toBe(want.start);
        expect(end.toISOString().replace('.000', ''), `${rec.id} end`).toBe(want.end);
        if (want.tz) expect(start.tz, `${rec.id} tz`).toBe(want.tz);
        else expect(['Etc/UTC', 'UTC', undefined]).toContain(start.tz);
      }
      expect(ev!.status).toBe('CONFIRMED');
    }
    const concert = parsed.get(`4711@${HOST}`)!;
    expect(concert.summary).toBe('Spring Concert – Bach & Brahms');
    expect(concert.location).toBe('Town Hall, 1 Main St, Springfield, NY, 12345, United States');
    expect(concert.categories).toEqual(['Music', 'Concerts & Recitals']);
    expect(concert.geo).toEqual({ lat: 42.1015, lon: -72.5898 });
    const organizer = concert.organizer as unknown as { params: { CN: string }; val: string };
    expect(organizer.params.CN).toBe('Arts Council');
    expect(organizer.val).toBe('mailto:info@example.org');
    expect(String(concert.description)).toContain('Bach: Suite No. 1');
    expect(parsed.get(`4716@${HOST}`)!.summary).toBe('Tōkyō Jazz Night 🎷');
    expect(String(parsed.get(`4716@${HOST}`)!.description)).toContain('außergewöhnlicher Abend');
    expect(parsed.get(`4715@${HOST}`)!.summary).toBe('Late Show; extra hour');
  });
});
