import { describe, expect, it } from 'vitest';
import { ImportIcsPayload } from '../../jobs/import-ics.ts';
import { fetchSource } from '../../src/sources/fetch/index.ts';
import { redactText, redactUrl } from '../../src/util/redact.ts';

/**
 * Regression: private calendar links keep their secret in the PATH, not in userinfo or the query,
 * and the redaction (src/util/redact.ts) only knew those two. A Google "secret address in iCal
 * format" or a published Outlook calendar appeared whole in fetch errors, the run history, the
 * logs and the dashboard, and an ad-hoc queued job kept it in Redis.
 */

const KEY = '0123456789abcdef0123456789abcdef';
const GOOGLE = `https://calendar.google.com/calendar/ical/john.smith%40gmail.com/private-${KEY}/basic.ics`;
const OUTLOOK = `https://outlook.office365.com/owa/calendar/4f1c2d3e4b5a69788796a5b4c3d2e1f0@contoso.com/${KEY}9876543210/calendar.ics`;
const OUTLOOK_LIVE = 'https://outlook.live.com/owa/calendar/00000000-0000-0000-0000-000000000000/2f3e4d5c-6b7a-4890-a1b2-c3d4e5f60718/cid-A1B2C3D4E5F60718/calendar.ics';
const ICLOUD = 'webcal://p42-caldav.icloud.com/published/2/MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkw';
const NEXTCLOUD = 'https://cloud.example/remote.php/dav/public-calendars/J8D2SFNWXQ3A7K4P?export';

describe('regression: secrets in URL paths (private Google/Outlook ICS links) were shown unredacted', () => {
  it.each([
    [GOOGLE, 'https://calendar.google.com/calendar/ical/john.smith%40gmail.com/private-REDACTED/basic.ics'],
    [OUTLOOK, 'https://outlook.office365.com/owa/calendar/REDACTED@contoso.com/REDACTED/calendar.ics'],
    [OUTLOOK_LIVE, 'https://outlook.live.com/owa/calendar/REDACTED/REDACTED/REDACTED/calendar.ics'],
    [ICLOUD, 'webcal://p42-caldav.icloud.com/published/2/REDACTED'],
    [NEXTCLOUD, 'https://cloud.example/remote.php/dav/public-calendars/REDACTED?export'],
    // The known shapes are redacted even when their key is short or all letters.
    ['https://calendar.google.com/calendar/ical/a%40b.example/private-abcdef/basic.ics', 'https://calendar.google.com/calendar/ical/a%40b.example/private-REDACTED/basic.ics'],
    ['https://outlook.office365.com/owa/calendar/a@b.example/short/calendar.ics', 'https://outlook.office365.com/owa/calendar/a@b.example/REDACTED/calendar.ics'],
  ])('redactUrl and redactText agree on %s', (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
    expect(redactText(`Timed out fetching ${input} after 30 s`)).toBe(`Timed out fetching ${expected} after 30 s`);
  });

  it.each([
    'https://calendar.google.com/calendar/ical/en.usa%23holiday%40group.v.calendar.google.com/public/basic.ics',
    'https://city.example/wp-json/tribe/events/v1/events/12345',
    'https://www.example.org/calendar/events/2024-05-01/summer-festival-2024.ics',
    'https://www.meetup.com/some-group/events/298765432/ical/',
    'https://example.org/internationalization/Calendar/PublicEvents.ics',
    'https://cal.example/users/@me/feed.ics',
    'http://127.0.0.1:8080/demo/city.ics',
  ])('an ordinary URL stays byte-identical: %s', (url) => {
    expect(redactUrl(url)).toBe(url);
    expect(redactText(`see ${url} for details`)).toBe(`see ${url} for details`);
  });

  it('the fetch error of a private Google link (what a report, the history and failedReason keep) has no key', async () => {
    const url = `http://127.0.0.1:9/calendar/ical/john.smith%40gmail.com/private-${KEY}/basic.ics`;
    const err = await fetchSource(url).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain('private-REDACTED/basic.ics');
    expect((err as Error).message).not.toContain(KEY);
    expect((err as { url: string }).url).not.toContain(KEY);
  });

  it('an ad-hoc queued job refuses a location whose path holds a key; ordinary ones still pass', () => {
    for (const location of [GOOGLE, OUTLOOK, ICLOUD]) {
      const parsed = ImportIcsPayload.safeParse({ site: 'city', location });
      expect(parsed.success, location).toBe(false);
      expect(JSON.stringify(parsed.error?.issues)).toMatch(/private key/);
    }
    expect(ImportIcsPayload.safeParse({ site: 'city', location: 'https://www.example.org/calendar/events/summer-festival-2024.ics' }).success).toBe(true);
  });
});
