import { describe, expect, it } from 'vitest';
import { parseBoolean } from '../../src/sources/csv/booleans.ts';
import { normalizeName, splitTerms } from '../../src/sources/csv/row.ts';
import { parseStatus } from '../../src/sources/csv/status.ts';
import { sanitizeHtml } from '../../src/model/html.ts';
import { parseZone } from '../../src/sources/csv/zones.ts';
import { bytesOpen, collect, draftAt, failureAt, opts } from './helpers.ts';

describe('booleans', () => {
  it('reads spreadsheet yes/no spellings in any case; empty is undefined', () => {
    const read = (v: string) => {
      const r = parseBoolean(v);
      return r.ok ? r.value : 'ERR';
    };
    for (const v of ['yes', 'YES', 'Yes', 'y', 'Y', 'true', 'TRUE', 'True', '1', 'x', 'X', 'oui', 'Ja', 'on']) expect(read(v), v).toBe(true);
    for (const v of ['no', 'NO', 'n', 'false', 'FALSE', '0', 'non', 'Nein', 'off']) expect(read(v), v).toBe(false);
    for (const v of ['', '  ']) expect(read(v)).toBeUndefined();
    for (const v of ['maybe', '2', 'yes please', 'tru']) expect(read(v), v).toBe('ERR');
  });
});

describe('time zones', () => {
  it('IANA names (case fixed, links kept), UTC forms, offsets', () => {
    const z = (v: string) => {
      const r = parseZone(v);
      return r.ok ? r.value : 'ERR';
    };
    expect(z('Europe/Nicosia')).toBe('Europe/Nicosia'); // not ICU's canonical Asia/Nicosia
    expect(z('europe/berlin')).toBe('Europe/Berlin');
    expect(z('America/New_York')).toBe('America/New_York');
    expect(z('UTC')).toBe('UTC');
    expect(z('gmt')).toBe('UTC');
    expect(z('UTC+0')).toBe('UTC');
    expect(z('UTC+2')).toBe('Etc/GMT-2');
    expect(z('UTC-5')).toBe('Etc/GMT+5');
    expect(z('+02:00')).toBe('Etc/GMT-2');
    expect(z('GMT+10')).toBe('Etc/GMT-10');
    expect(z('UTC+3:30')).toBe('UTC+3.5'); // no Etc/ zone for half hours: the site's own form
    expect(z('UTC+5:45')).toBe('UTC+5.75');
    expect(z('UTC-3.5')).toBe('UTC-3.5');
    expect(z('')).toBeUndefined();
    for (const v of ['Mars/Olympus', 'UTC+15', 'UTC+3:20', 'EST5EDT8']) expect(z(v), v).toBe('ERR');
  });
});

describe('terms, names, statuses, HTML', () => {
  it('splits categories on ";" when present, else ","; on "," in a ";" file; trims and dedupes', () => {
    expect(splitTerms('Convention, Conference', ',')).toEqual(['Convention', 'Conference']);
    expect(splitTerms('Talks, Lectures; Music', ',')).toEqual(['Talks, Lectures', 'Music']);
    expect(splitTerms('A,B', ';')).toEqual(['A', 'B']);
    expect(splitTerms('A, a ,B,,', ',')).toEqual(['A', 'B']);
    expect(splitTerms('  ', ',')).toEqual([]);
  });
  it('normalizes names for venue/organizer identity', () => {
    expect(normalizeName('  Town   Hall ')).toBe('town hall');
    expect(normalizeName('Ｔｏｗｎ Hall')).toBe('town hall'); // NFKC folds full-width letters
    expect(normalizeName('Zu\u0308rich')).toBe(normalizeName('Zürich'));
  });
  it('reads post statuses and cancellations', () => {
    expect(parseStatus('Published')).toEqual({ ok: true, value: { status: 'publish' } });
    expect(parseStatus('DRAFT')).toEqual({ ok: true, value: { status: 'draft' } });
    expect(parseStatus('Cancelled')).toEqual({ ok: true, value: { cancelled: true } });
    expect(parseStatus('confirmed')).toEqual({ ok: true, value: {} });
    expect(parseStatus('archived').ok).toBe(false);
  });
  it('keeps HTML but drops script/style, event handlers and javascript: URLs', () => {
    expect(sanitizeHtml('<p>Hi <strong>there</strong></p>')).toBe('<p>Hi <strong>there</strong></p>');
    expect(sanitizeHtml('a<script>alert(1)</script>b<style>p{}</style>c')).toBe('abc');
    expect(sanitizeHtml('<img src="x.png" onerror="alert(1)" alt="x">')).toBe('<img src="x.png" alt="x" />');
    expect(sanitizeHtml('<a href="javascript:alert(1)">x</a>')).toBe('<a>x</a>');
    expect(sanitizeHtml('<SCRIPT src=//evil></SCRIPT>ok')).toBe('ok');
  });
});

describe('row values', () => {
  const file = [
    'Event Name,Event Start Date,Event Cost,Event Currency Symbol,Event Currency Position,Event Category,Event Tags,Event Featured,Sticky in Month View,Hide from Event Listings,Event Website,Event Featured Image,Event Description,Status,Private',
    'A,2024-05-01,10,$,prefix,"Music, Family",jazz;free,x,n,0,www.example.org,123,"<p onclick=""x()"">Hello</p><script>bad()</script>",draft,',
    'B,2024-05-02,10,€,suffix,,,,,,https://example.org/b,https://example.org/b.jpg,,Cancelled,',
    'C,2024-05-03,Free,,,,,,,,,,,,yes',
    'D,2024-05-04,5,£,middle,,,,,,,,,,',
    'E,2024-05-05,,$,,,,,,,,photo.jpg,,archived,',
  ].join('\r\n');

  it('cost with currency symbol and position, terms, booleans, URLs, status, sanitized HTML', async () => {
    const c = await collect(bytesOpen(file), opts({ status: 'publish' }));
    expect(draftAt(c, 2)).toMatchObject({
      cost: '$10', featured: true, sticky: false, hide_from_listings: false, website: 'http://www.example.org', image: '123',
      description: '<p>Hello</p>', status: 'draft', cancelled: false,
      categories: [{ name: 'Music' }, { name: 'Family' }], tags: [{ name: 'jazz' }, { name: 'free' }],
    });
    expect(draftAt(c, 3)).toMatchObject({ cost: '10€', cancelled: true, status: 'publish', image: 'https://example.org/b.jpg' });
    expect(draftAt(c, 4)).toMatchObject({ cost: 'Free', status: 'private' });
    expect(draftAt(c, 4).featured).toBeUndefined(); // empty → site default
    expect(failureAt(c, 5).reason).toBe("Event Currency Position: 'middle' is not prefix or suffix");
    expect(failureAt(c, 6).reason).toBe(
      "Status: 'archived' is not a post status (publish, draft, pending, private, future or cancelled); Event Featured Image: 'photo.jpg' is not a web address (http:// or https://) or an attachment id",
    );
  });
});
