import { describe, expect, it } from 'vitest';
import { plainText, sanitizeHtml, webUrl } from '../../src/model/html.ts';
import { decodeEntities } from '../../src/util/entities.ts';
import { eventDraftFromRecord, organizerDraft, termDraft, venueDraft } from '../../src/sources/site/normalize.ts';
import type { EventRecord, OrganizerRecord, VenueRecord } from '../../src/api/index.ts';
import { collect, bytesOpen, opts as csvOpts } from '../csv/helpers.ts';
import { ics, run } from '../ics/helpers.ts';
import { BYPASSES, OWASP, inertProblems } from './vectors.ts';

const ALL = [...BYPASSES, ...OWASP];
const icsEscape = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/;/g, '\\;').replace(/,/g, '\\,');
const csvCell = (s: string) => `"${s.replace(/"/g, '""')}"`;

describe('regression: HTML sanitizer bypasses reached the site (issue 14 part 3)', () => {
  it.each(ALL)('the shared sanitizer leaves nothing that runs: %s', (_name, html) => {
    const out = sanitizeHtml(`<p>before</p>${html}<p>after</p>`);
    expect(inertProblems(out)).toEqual([]);
    expect(out).toContain('<p>before</p>');
  });

  it('keeps the markup a description legitimately has', () => {
    const ok = '<p>Hi <strong>there</strong> <a href="https://ok.example/?a=1&amp;b=2" title="t">link</a> <a href="mailto:x@example.org">mail</a> <a href="tel:+4930123">call</a> <a href="/rel">rel</a></p><ul><li>one</li></ul><img src="https://cdn.example/p.jpg" alt="poster" />';
    expect(sanitizeHtml(ok)).toBe(ok);
  });

  it.each(ALL)('ICS: X-ALT-DESC and DESCRIPTION carry nothing that runs: %s', (_name, html) => {
    const alt = run(ics(`UID:x\nSUMMARY:S\nDTSTART:20240101T100000Z\nX-ALT-DESC;FMTTYPE=text/html:<p>x</p>${icsEscape(html)}`));
    const desc = run(ics(`UID:y\nSUMMARY:S\nDTSTART:20240101T100000Z\nDESCRIPTION:<p>x</p>${icsEscape(html)}`));
    for (const d of [...alt.drafts, ...desc.drafts]) expect(inertProblems(d.description ?? '')).toEqual([]);
  });

  it('CSV: every vector in description, excerpt, venue and organizer descriptions is inert', async () => {
    const header = 'Event Name,Event Start Date,Event Description,Event Excerpt,Event Venue Name,Venue Description';
    const rows = ALL.map(([, h], i) => [`E${i}`, '2024-05-01', csvCell(`<p>x</p>${h}`), csvCell(h), `V${i}`, csvCell(`<p>v</p>${h}`)].join(','));
    const c = await collect(bytesOpen([header, ...rows].join('\n')), csvOpts({ sourceName: 'x.csv' }));
    expect(c.drafts).toHaveLength(ALL.length);
    for (const d of c.drafts) {
      for (const v of [d.description, d.excerpt, d.venue?.description]) expect(inertProblems(v ?? '')).toEqual([]);
    }
  });

  it.each(ALL)('site source: description, excerpt, venue/organizer/term descriptions are inert: %s', (_name, html) => {
    const venue = { id: 5, venue: 'V', description: html, website: 'javascript:alert(1)' } as unknown as VenueRecord;
    const organizer = { id: 6, organizer: 'O', description: html, website: 'java\tscript:alert(1)' } as unknown as OrganizerRecord;
    const record = {
      id: 9, title: 'T', description: `<p>x</p>${html}`, excerpt: html, slug: 's', status: 'publish', timezone: 'UTC', all_day: false,
      start_date: '2024-01-01 10:00:00', end_date: '2024-01-01 11:00:00', website: 'javascript:alert(1)', venue, organizer: [organizer],
      categories: [{ id: 1, name: 'C', slug: 'c', description: html }], tags: [],
    } as unknown as EventRecord;
    const r = eventDraftFromRecord(record, { sourceSiteKey: 'src', sourceName: 'source' });
    expect(r.ok).toBe(true);
    const d = (r as { ok: true; draft: import('../../src/model/draft.ts').EventDraft }).draft;
    for (const v of [d.description, d.excerpt, d.venue?.description, d.organizers[0]?.description, d.categories[0]?.description]) expect(inertProblems(v ?? '')).toEqual([]);
    expect([d.website, d.venue?.website, d.organizers[0]?.website]).toEqual([undefined, undefined, undefined]);
  });
});

describe('regression: titles and venue/organizer names passed markup through (SUMMARY:<script>…)', () => {
  const HOSTILE = ['<script>alert(1)</script>Party', '<img src=x onerror=alert(1)>Party', 'Party<svg/onload=alert(1)>', '&lt;script&gt;alert(1)&lt;/script&gt;Party'];

  it.each(HOSTILE)('plain text has no markup left: %s', (s) => {
    const t = plainText(s);
    expect(t).not.toMatch(/<[a-z!/?]/i);
    expect(t).toContain('Party');
  });

  it('decodes entities exactly once and keeps ordinary text', () => {
    expect(plainText('Tom &amp; Jerry')).toBe('Tom & Jerry');
    expect(plainText('Caf&eacute; &#8217;24')).toBe('Café ’24');
    expect(plainText('&amp;amp;')).toBe('&amp;'); // once, not twice
    expect(plainText('a < b > c')).toBe('a < b > c');
    expect(plainText('<b>Bold</b> & more')).toBe('Bold & more');
  });

  it('ICS: SUMMARY, LOCATION, ORGANIZER CN and CATEGORIES lose their markup', () => {
    const r = run(ics('UID:h\nSUMMARY:<script>alert(1)</script>Concert <b>live</b>\nDTSTART:20240101T100000Z\nLOCATION:<img src=x onerror=alert(1)>Town Hall\\, 1 Main St\nORGANIZER;CN="<b onmouseover=alert(1)>Arts</b>":mailto:a@example.org\nCATEGORIES:<i>Music</i>'));
    const d = r.drafts[0]!;
    expect(d.title).toBe('Concert live');
    expect(d.venue?.venue).toBe('Town Hall');
    expect(d.organizers[0]?.organizer).toBe('Arts');
    expect(d.categories.map((c) => c.name)).toEqual(['Music']);
  });

  // A SUMMARY with no text once markup is removed is a VEVENT without SUMMARY (RFC 5545 allows
  // one): imported under the placeholder title with a warning, never with the script or an empty title.
  it('ICS: a SUMMARY that is nothing but a script is imported as "(No title)", never with the script', () => {
    const r = run(ics('UID:h\nSUMMARY:<script>alert(1)</script>\nDTSTART:20240101T100000Z'));
    expect(r.drafts.map((d) => d.title)).toEqual(['(No title)']);
    expect(r.failures).toHaveLength(0);
  });

  it('CSV: title, venue, address, cost, organizer and category cells lose their markup', async () => {
    const header = 'Event Name,Event Start Date,Event Venue Name,Venue Address,Event Cost,Event Organizer Name,Event Category';
    const row = ['<script>alert(1)</script>Gala', '2024-05-01', '<b onclick=x()>Hall</b>', '<img src=x onerror=alert(1)>1 Main St', '<i>10</i>', '<b onclick=alert(1)>Org</b>', '<u>Music</u>'].map(csvCell).join(',');
    const c = await collect(bytesOpen(`${header}\n${row}\n${csvCell('<script>x</script>')},2024-05-01,,,,,`), csvOpts({ sourceName: 'x.csv' }));
    const d = c.drafts[0]!;
    expect([d.title, d.venue?.venue, d.venue?.address, d.cost, d.organizers[0]?.organizer, d.categories[0]?.name]).toEqual(['Gala', 'Hall', '1 Main St', '10', 'Org', 'Music']);
    expect(c.failures[0]?.reason).toContain('has no text once markup is removed');
  });

  it('site source: title, venue and organizer names, address and term names lose their markup', () => {
    const v = venueDraft({ id: 1, venue: '<script>x</script>Hall &amp; Co', address: '<b>1</b> Main' } as unknown as VenueRecord, 'src');
    const o = organizerDraft({ id: 2, organizer: '<img src=x onerror=alert(1)>Org' } as unknown as OrganizerRecord, 'src');
    const t = termDraft({ name: '<i>Music</i> &amp; Arts', slug: 'music' });
    expect([v.venue, v.address, o.organizer, t.name]).toEqual(['Hall & Co', '1 Main', 'Org', 'Music & Arts']);
    const markupOnly = venueDraft({ id: 3, venue: '<script>x</script>' } as unknown as VenueRecord, 'src');
    expect(markupOnly.venue).toBe('Venue 3');
  });
});

describe('regression: the entity decoder threw on &#99999999;', () => {
  it('never throws; out-of-range, surrogate and zero references become U+FFFD', () => {
    expect(() => decodeEntities('&#99999999;')).not.toThrow();
    expect(decodeEntities('a&#99999999;b&#xD800;c&#0;')).toBe('a\ufffdb\ufffdc\ufffd');
    expect(plainText('&#99999999;Title')).toBe('\ufffdTitle');
  });
});

describe('link fields (webUrl)', () => {
  it('keeps absolute http(s) links as written (trimmed), in any case, and nothing else', () => {
    for (const v of ['https://x.org', 'HTTP://X.ORG/a?b#c', ' https://x.org/a ', 'http:x.org', 'HtTpS://[::1]/']) expect(webUrl(v), v).toBe(v.trim());
    for (const v of [undefined, '', '  ', 'https:', 'http://', 'http://a b.org', 'http://x.org:99999', 'ftp://x.org', 'javascript:alert(1)', 'mailto:a@b.c', '//x.org', 'x.org']) {
      expect(webUrl(v), String(v)).toBeUndefined();
    }
  });
  it('reads the scheme as the URL standard does: tabs and line breaks inside it are dropped', () => {
    expect(webUrl('h\tttp://x.org')).toBe('h\tttp://x.org');
    expect(webUrl('ht\ntps://x.org/')).toBe('ht\ntps://x.org/');
    expect(webUrl('java\tscript:alert(1)')).toBeUndefined();
  });
});
