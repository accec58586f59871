import { describe, expect, it } from 'vitest';
import { slugFor } from '../../src/model/identity.ts';
import { organizerFromProp } from '../../src/sources/ics/organizer.ts';
import { parseContentLine } from '../../src/ical/contentline.ts';
import { venueFromLocation } from '../../src/sources/ics/venue.ts';
import { NO_TITLE } from '../../src/sources/ics/normalize.ts';
import { ics, run, runCorpus } from './helpers.ts';

const base = 'UID:evt-1\nSUMMARY:Concert\nDTSTART;TZID=Europe/Berlin:20240601T200000\nDTEND;TZID=Europe/Berlin:20240601T220000';

describe('identity', () => {
  it('is the same for the same input, on every run', () => {
    const a = runCorpus('google-madrid-monthly-first-thursday-two-overrides.ics').drafts.map((d) => d.identity);
    const b = runCorpus('google-madrid-monthly-first-thursday-two-overrides.ics').drafts.map((d) => d.identity);
    expect(a).toEqual(b);
    expect(a.map((i) => slugFor('feed', i))).toEqual(b.map((i) => slugFor('feed', i)));
  });

  it('a non-recurring event is its UID: retitling or moving it keeps the identity', () => {
    const one = run(ics(base)).drafts[0].identity;
    expect(one).toBe('evt-1');
    expect(run(ics(base.replace('Concert', 'Concert (new title)'))).drafts[0].identity).toBe(one);
    expect(run(ics(base.replace(/20240601T/g, '20240602T'))).drafts[0].identity).toBe(one);
  });

  it('an occurrence is UID + original start; a moved or retitled override keeps it', () => {
    const series = `${base}\nRRULE:FREQ=WEEKLY;COUNT=3`;
    const plain = run(ics(series)).drafts.map((d) => d.identity);
    expect(plain).toEqual(['evt-1|2024-06-01T18:00:00Z', 'evt-1|2024-06-08T18:00:00Z', 'evt-1|2024-06-15T18:00:00Z']);
    const moved = run(ics(series, 'UID:evt-1\nRECURRENCE-ID;TZID=Europe/Berlin:20240608T200000\nSUMMARY:Moved concert\nDTSTART;TZID=Europe/Berlin:20240609T180000\nDURATION:PT2H'));
    expect(moved.drafts.map((d) => d.identity)).toEqual(plain);
    expect(moved.drafts[1]).toMatchObject({ title: 'Moved concert', start_date: '2024-06-09 18:00:00' });
    // Retitling the whole series keeps every identity.
    expect(run(ics(series.replace('Concert', 'Gig'))).drafts.map((d) => d.identity)).toEqual(plain);
  });

  it('events without UID get a content identity and are counted', () => {
    const r = run(ics('SUMMARY:No uid\nDTSTART:20240101T100000Z\nLOCATION:Hall'));
    expect(r.drafts[0].identity).toBe('nouid|No uid|2024-01-01T10:00:00Z|Hall');
    expect(r.summary.withoutUid).toBe(1);
    expect(r.drafts[0].origin).toEqual({ source: 'test.ics', line: 4, uid: undefined, occurrence: undefined });
  });

  it('distinct VEVENTs sharing a UID are kept apart (#2), exact copies and older SEQUENCEs are superseded', () => {
    const r = runCorpus('evolution-rrule-zoo-zero-length-allday.ics', { window: { from: new Date('2009-01-01T00:00:00Z'), to: new Date('2009-03-01T00:00:00Z') } });
    expect(r.drafts.some((d) => d.identity.startsWith('monthlyLastDayOfNth-1#2|'))).toBe(true);
    expect(r.summary.warnings.join('\n')).toMatch(/UID monthlyLastDayOfNth-1: 2 different VEVENTs/);
    const copies = run(ics(base, base, base.replace('Concert', 'Old') + '\nSEQUENCE:0', `${base.replace('Concert', 'Newest')}\nSEQUENCE:3`));
    expect(copies.drafts.map((d) => d.title)).toEqual(['Newest']);
    expect(copies.summary.accounting).toEqual({ drafted: 1, failed: 0, outsideWindow: 0, superseded: 3 });
  });

  it('origin names the source, line, UID and occurrence', () => {
    const r = run(ics(`${base}\nRRULE:FREQ=DAILY;COUNT=1`), { sourceName: 'https://example.org/feed.ics' }, 'ignored');
    expect(r.drafts[0].origin).toEqual({ source: 'https://example.org/feed.ics', line: 4, uid: 'evt-1', occurrence: '2024-06-01T18:00:00Z' });
  });
});

describe('failures', () => {
  it('no DTSTART and invalid DTSTART are named failures, one per VEVENT', () => {
    const r = run(ics('UID:a\nSUMMARY:A\nDTSTART:20240101T100000Z\nRRULE:FREQ=DAILY;COUNT=5', 'UID:b\nSUMMARY:B', 'SUMMARY:C\nDTSTART:20241301T100000'));
    expect(r.drafts).toHaveLength(5);
    expect(r.failures.map((f) => f.reason)).toEqual([
      'VEVENT #2 at line 10 (UID b): no DTSTART',
      'VEVENT #3 at line 14: invalid DTSTART "20241301T100000" at line 16',
    ]);
    expect(r.failures.map((f) => f.origin.line)).toEqual([10, 14]);
    expect(r.summary.failures).toBe(2);
  });

  it('regression: a VEVENT without SUMMARY was failed ("no SUMMARY"); RFC 5545 makes it optional', () => {
    const r = run(ics('UID:a\nDTSTART:20240101T100000Z\nRRULE:FREQ=DAILY;COUNT=5', 'UID:b\nSUMMARY:  \nDTSTART:20240201T100000Z'));
    expect(r.failures).toEqual([]);
    expect(r.drafts).toHaveLength(6);
    expect(new Set(r.drafts.map((d) => d.title))).toEqual(new Set([NO_TITLE]));
    // One warning per VEVENT (not per occurrence), naming it by position, line and UID.
    expect(r.summary.warnings.filter((w) => /no SUMMARY/.test(w))).toEqual([
      `VEVENT #1 at line 4 (UID a): no SUMMARY; imported as "${NO_TITLE}"`,
      `VEVENT #2 at line 9 (UID b): no SUMMARY; imported as "${NO_TITLE}"`,
    ]);
    // An override without SUMMARY still inherits its master's.
    const ov = run(ics('UID:s\nSUMMARY:Master\nDTSTART:20240101T100000Z\nRRULE:FREQ=DAILY;COUNT=2', 'UID:s\nRECURRENCE-ID:20240102T100000Z\nDTSTART:20240102T120000Z'));
    expect(ov.drafts.map((d) => d.title)).toEqual(['Master', 'Master']);
    expect(ov.summary.warnings.join('\n')).not.toMatch(/no SUMMARY/);
  });
  it('the corpus file without DTSTART fails each of its 5 VEVENTs by name', () => {
    const r = runCorpus('categories-variants-no-dtstart.ics');
    expect(r.failures.map((f) => f.reason.replace(/ at line \d+/, ''))).toEqual([1, 2, 3, 4, 5].map((n) => expect.stringMatching(new RegExp(`^VEVENT #${n}.*: no DTSTART$`))));
  });
});

describe('content fields', () => {
  it('CATEGORIES: several lines, escaped commas, empty values, duplicates; option categoriesAs', () => {
    const body = `${base}\nCATEGORIES:Music,Jazz\\, Blues, music \nCATEGORIES:\nCATEGORIES:Outdoor,Jazz\\, Blues`;
    const r = run(ics(body));
    expect(r.drafts[0].categories).toEqual([{ name: 'Music' }, { name: 'Jazz, Blues' }, { name: 'Outdoor' }]);
    expect(r.drafts[0].tags).toEqual([]);
    const t = run(ics(body), { categoriesAs: 'tags' });
    expect(t.drafts[0].tags.map((x) => x.name)).toEqual(['Music', 'Jazz, Blues', 'Outdoor']);
    expect(t.drafts[0].categories).toEqual([]);
    expect(runCorpus('categories-escaped-commas.ics').drafts[0].categories.map((c) => c.name)).toEqual(['Meeting, John', 'Work, Sarah', 'Project']);
  });

  it('status option is copied; URL becomes website only when absolute http(s)', () => {
    const r = run(ics(`${base}\nURL:https://example.org/e/1`), { status: 'draft' });
    expect(r.drafts[0]).toMatchObject({ status: 'draft', website: 'https://example.org/e/1' });
    expect(run(ics(`${base}\nURL:F`)).drafts[0].website).toBeUndefined();
    expect(run(ics(`${base}\nURL:javascript:alert(1)`)).drafts[0].website).toBeUndefined();
    // Relative URLs resolve against a URL source.
    expect(run(ics(`${base}\nURL:/c/calendar`), { sourceName: 'https://forum.example/c/feed.ics' }).drafts[0].website).toBe('https://forum.example/c/calendar');
  });

  it('image from ATTACH/IMAGE URLs that are images (FMTTYPE or extension), never inline data or CID', () => {
    expect(run(ics(`${base}\nATTACH;FMTTYPE=image/jpeg:https://cdn.example/p?id=1`)).drafts[0].image).toBe('https://cdn.example/p?id=1');
    expect(run(ics(`${base}\nATTACH:https://cdn.example/poster.PNG`)).drafts[0].image).toBe('https://cdn.example/poster.PNG');
    expect(run(ics(`${base}\nATTACH:https://cdn.example/file.pdf`)).drafts[0].image).toBeUndefined();
    expect(run(ics(`${base}\nATTACH:CID:abc@x`)).drafts[0].image).toBeUndefined();
    expect(runCorpus('mozilla-attach-base64-inline.ics').drafts[0].image).toBeUndefined();
    expect(runCorpus('wordpress-ai1ec-icalcreator-fablab-german.ics').drafts.some((d) => d.image?.endsWith('.jpg'))).toBe(true);
  });

  it('summary whitespace is collapsed and NFC-normalized; QUOTED-PRINTABLE text decoded', () => {
    const r = run(ics('UID:q\nSUMMARY;ENCODING=QUOTED-PRINTABLE:  Gr=C3=BC=C3=9Fe  aus\\n Ko\u0308ln \nDTSTART:20240101T100000Z'));
    expect(r.drafts[0].title).toBe('Grüße aus Köln');
  });
});

describe('venue', () => {
  it('splits "Name, street, city zip" and "Name (address)"; a single token is the venue', () => {
    expect(venueFromLocation('Stadthalle, Hauptstr. 1, 10115 Berlin')).toEqual({ identity: 'stadthalle, hauptstr. 1, 10115 berlin', venue: 'Stadthalle', address: 'Hauptstr. 1, 10115 Berlin' });
    expect(venueFromLocation('Open Source Project Tempe (1415 E University Dr. #103A, Tempe, AZ 85281)')).toMatchObject({ venue: 'Open Source Project Tempe', address: '1415 E University Dr. #103A, Tempe, AZ 85281' });
    expect(venueFromLocation('  Kontoret ')).toEqual({ identity: 'kontoret', venue: 'Kontoret' });
    expect(venueFromLocation('17 Commerce Crescent,Eastgate')).toMatchObject({ venue: '17 Commerce Crescent, Eastgate', address: '17 Commerce Crescent, Eastgate' });
    expect(venueFromLocation('Roadstar 16\n12764 Happyville\nDenmark')).toMatchObject({ venue: 'Roadstar 16', address: '12764 Happyville, Denmark' });
    expect(venueFromLocation('https://meet.example/abc')).toBeUndefined();
    expect(venueFromLocation('')).toBeUndefined();
  });
  it('identity is the normalized location text, so the same place is one venue', () => {
    const a = run(ics(`${base}\nLOCATION:Stadthalle\\,  Hauptstr. 1`)).drafts[0].venue!;
    const b = run(ics(`${base.replace('evt-1', 'evt-2')}\nLOCATION:stadthalle\\, Hauptstr. 1`)).drafts[0].venue!;
    expect(a.identity).toBe(b.identity);
  });
  it('GEO is attached when valid and ignored when not', () => {
    expect(run(ics(`${base}\nLOCATION:Park\nGEO:52.5;13.4`)).drafts[0].venue?.geo).toEqual({ lat: 52.5, lng: 13.4 });
    expect(run(ics(`${base}\nLOCATION:Park\nGEO:952.5;13.4`)).drafts[0].venue?.geo).toBeUndefined();
    expect(run(ics(`${base}\nLOCATION:Park\nGEO:abc`)).drafts[0].venue?.geo).toBeUndefined();
    // SOGo escapes the separator (`12.34567\;12.34567`): still read.
    expect(runCorpus('sogo-geo-escaped-semicolon.ics').drafts[0].venue?.geo).toEqual({ lat: 12.34567, lng: 12.34567 });
    // Swapped coordinates (last.fm) are still valid ranges: kept as written, not "fixed".
    const lastfm = runCorpus('lastfm-events-blank-lines-swapped-geo.ics').drafts;
    expect(lastfm.filter((d) => d.venue?.geo).length).toBe(32); // one event has `GEO:;`
    expect(lastfm[0].venue?.geo).toEqual({ lat: 6.161613, lng: 52.255862 });
  });
  it('uses Apple structured locations for the geo and, when given, the title', () => {
    const z = runCorpus('google-zurich-weekday-rrule-apple-structured-location.ics', { maxOccurrencesPerSeries: 1 }).drafts[0];
    expect(z.venue).toMatchObject({ venue: 'Roadstar 16', address: '12764 Happyville, Denmark', geo: { lat: 52.382762, lng: 7.528319 } });
    const t = run(ics(`${base}\nX-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-ADDRESS="Main St 1\\nTown";X-TITLE=City Hall:geo:1.5,2.5`)).drafts[0];
    expect(t.venue).toEqual({ identity: 'city hall', venue: 'City Hall', address: 'Main St 1, Town', geo: { lat: 1.5, lng: 2.5 } });
  });
});

describe('organizer', () => {
  const org = (line: string) => organizerFromProp(parseContentLine(line, 1));
  it('takes CN as name and the mailto address as e-mail; identity is the lower-cased e-mail', () => {
    expect(org('ORGANIZER;CN="acme, ädmin":MAILTO:Admin@Example.COM')).toEqual({ identity: 'admin@example.com', organizer: 'acme, ädmin', email: 'Admin@Example.COM' });
    expect(org("ORGANIZER;CN='Jane Doe':mailto:jane@example.org")).toMatchObject({ organizer: 'Jane Doe' });
  });
  it('falls back to the e-mail local part, or to the name alone', () => {
    expect(org('ORGANIZER:mailto:team.events@example.org')).toEqual({ identity: 'team.events@example.org', organizer: 'team.events', email: 'team.events@example.org' });
    expect(org('ORGANIZER;CN=Box Office:')).toEqual({ identity: 'box office', organizer: 'Box Office' });
    expect(org('ORGANIZER:')).toBeUndefined();
  });
  it('repairs parameters written after a colon (Confluence) and spaces inside the address', () => {
    expect(org('ORGANIZER:X-CONFLUENCE-USER-KEY=8a4a;CN=Daniel Latham;CUTYPE=INDIVIDUAL:mailto:dlatham@apple.com')).toEqual({ identity: 'dlatham@apple.com', organizer: 'Daniel Latham', email: 'dlatham@apple.com' });
    expect(org('ORGANIZER;CN=Room:mailto:room 1@example.org')).toMatchObject({ email: 'room1@example.org' });
    expect(runCorpus('bare-vevent-umlaut-organizer-cn-comma.ics').drafts[0].organizers[0].organizer).toBe('acme, ädmin');
  });
});
