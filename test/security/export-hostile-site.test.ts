import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../../src/api/index.ts';
import { renderEvent } from '../../src/export/render.ts';
import { BYPASSES, OWASP, inertProblems } from './vectors.ts';

/**
 * Regression: the ICS export copied a site's event HTML into X-ALT-DESC as it was, and its `url`
 * and featured image into URL and ATTACH whatever their scheme. A site stores what administrators
 * and editors type unfiltered, so `<script>`, `onerror=`, `javascript:` links and
 * `URL;VALUE=URI:javascript:alert(1)` went out in a public feed to every subscriber's calendar
 * app (Outlook renders X-ALT-DESC, calendar apps make URL and ATTACH clickable). The imports and
 * the sync never send such values to a site (test/security/html-sanitizer.test.ts); the export
 * now holds its subscribers to the same line.
 */

const ALL = [...BYPASSES, ...OWASP];

function record(description: string, extra: Partial<EventRecord> = {}): EventRecord {
  return {
    id: 7,
    title: 'Concert',
    description,
    start_date: '2026-03-01 19:00:00',
    end_date: '2026-03-01 21:00:00',
    timezone: 'Europe/Paris',
    all_day: false,
    modified_utc: '2026-01-01 00:00:00',
    ...extra,
  } as EventRecord;
}

/** Unfolded content lines of a rendered VEVENT. */
const lines = (text: string): string[] => text.replace(/\r\n[ \t]/g, '').split('\r\n');
const unescapeText = (v: string): string => v.replace(/\\([\\;,nN])/g, (_m, c: string) => (c === 'n' || c === 'N' ? '\n' : c));
const altDesc = (text: string): string | undefined => {
  const line = lines(text).find((l) => l.startsWith('X-ALT-DESC'));
  return line === undefined ? undefined : unescapeText(line.slice(line.indexOf(':') + 1));
};

describe('regression: the ICS export passed a site\'s scripts and javascript: links on to subscribers', () => {
  it.each(ALL)('X-ALT-DESC carries nothing that runs: %s', (_name, html) => {
    const alt = altDesc(renderEvent(record(`<p>Doors at <strong>7</strong></p>${html}`), { siteHost: 'site.example' }).text);
    // (A `<body>` tag makes the plain-text conversion keep only the body's content, which can leave
    // no DESCRIPTION and so no X-ALT-DESC: nothing is sent then, which is inert too.)
    expect(inertProblems(alt ?? '')).toEqual([]);
    if (alt !== undefined) expect(alt).toContain('<p>Doors at <strong>7</strong></p>');
  });

  it.each(['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==', 'vbscript:msgbox(1)', 'file:///etc/passwd'])(
    'URL and ATTACH are never %s',
    (bad) => {
      const text = renderEvent(record('<p>x</p>', { url: bad, image: { url: bad } } as Partial<EventRecord>), { siteHost: 'site.example' }).text;
      const out = lines(text).filter((l) => /^(?:URL|ATTACH)[;:]/.test(l));
      expect(out).toEqual([]);
    },
  );

  it('http(s) links and images still go out', () => {
    const text = renderEvent(record('<p>x</p>', { url: 'https://site.example/e/7', image: { url: 'https://site.example/p.jpg' } } as Partial<EventRecord>), { siteHost: 'site.example' }).text;
    expect(lines(text)).toEqual(expect.arrayContaining(['URL;VALUE=URI:https://site.example/e/7', 'ATTACH:https://site.example/p.jpg']));
  });

  it('a description that is nothing but a script has no X-ALT-DESC at all', () => {
    const text = renderEvent(record('<script>alert(1)</script>', { excerpt: 'Short text' } as Partial<EventRecord>), { siteHost: 'site.example' }).text;
    expect(altDesc(text)).toBeUndefined();
    expect(text).not.toContain('alert');
  });
});
