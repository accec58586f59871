import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { slugFor, slugify, sourceKeyFrom } from '../../src/model/identity.ts';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { redactUrl } from '../../src/util/redact.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { feedServer, testSite } from '../support/site.ts';

/** Private feeds whose path holds the key to the calendar (the shapes src/util/redact.ts redacts), and that key. */
const PRIVATE: { url: string; token: string }[] = [
  { url: 'https://cal.example.org/s/Ab12Cd34Ef56Gh78Ij90/feed.ics', token: 'Ab12Cd34Ef56Gh78Ij90' },
  { url: 'https://c.example.org/private-9f8e7d6c5b4a39281706/basic.ics', token: '9f8e7d6c5b4a39281706' },
  { url: 'https://h.io/c/123e4567-e89b-12d3-a456-426614174000.ics', token: '123e4567-e89b-12d3-a456-426614174000' },
  { url: 'https://calendar.google.com/calendar/ical/x/private-0123456789abcdef0123456789abcdef/basic.ics', token: '0123456789abcdef0123456789abcdef' },
  { url: 'https://o.example.com/owa/calendar/me/f00dfeedbeef4cafe/c/calendar.ics', token: 'f00dfeedbeef4cafe' },
];

/** Every run of 4 letters or digits of the token, as a slug would spell it. */
const pieces = (token: string): string[] => {
  const t = token.toLowerCase().replace(/[^a-z0-9]/g, '');
  return Array.from({ length: t.length - 3 }, (_, i) => t.slice(i, i + 4));
};

/**
 * Found in review: the default source key (`--source` omitted) is the URL's host and path,
 * slugified to 40 characters, so a private feed's key put characters of its path token in the
 * source key, and from there in the slug of every event on the (public) site and in the run
 * history, although the URL itself is redacted everywhere it is shown.
 */
describe('regression: a source key derived from a private URL held characters of its token', () => {
  it.each(PRIVATE)('$url', ({ url, token }) => {
    expect(redactUrl(url)).toContain('REDACTED'); // a URL the redaction treats as secret
    const key = sourceKeyFrom(url);
    for (const p of pieces(token)) expect(key, `"${p}" of the token`).not.toContain(p);
    expect(slugFor(key, 'uid-1')).not.toContain(pieces(token)[0]);
    expect(key).not.toContain('redacted');
  });

  it('two feeds differing only in their token keep two keys; the same feed keeps its key', () => {
    const a = sourceKeyFrom('https://cal.example.org/s/Ab12Cd34Ef56Gh78Ij90/feed.ics');
    const b = sourceKeyFrom('https://cal.example.org/s/Zz98Yy76Xx54Ww32Vv10/feed.ics');
    expect(a).not.toBe(b);
    expect(sourceKeyFrom('https://cal.example.org/s/Ab12Cd34Ef56Gh78Ij90/feed.ics')).toBe(a);
    expect(a).toMatch(/^cal-example-org-s-[a-z0-9]+-feed$/);
  });

  it('a feed imported under its old key (token in it) is not imported a second time under the new one: refused, naming the old key', { timeout: 60_000 }, async () => {
    const vevent = (i: number) => ['BEGIN:VEVENT', `UID:t${i}@example.org`, `SUMMARY:Talk ${i}`, `DTSTART:202705${String(i + 1).padStart(2, '0')}T190000Z`, 'DURATION:PT1H', 'END:VEVENT'];
    const feed = await feedServer(['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//EN', ...Array.from({ length: 10 }, (_, i) => vevent(i)).flat(), 'END:VCALENDAR', ''].join('\r\n'));
    const env = await testSite();
    const redis: Redis = testRedis();
    try {
      const url = feed.url.replace('/feed.ics', '/s/Ab12Cd34Ef56Gh78Ij90/feed.ics');
      const oldKey = slugify(`${new URL(url).hostname}${new URL(url).pathname}`.replace(/\.ics$/, ''), 40); // the key main derived
      const ctx = { redis, prefix: testPrefix() };
      const params = (sourceKey: string): IcsImportParams => ({
        location: url, site: env.site, sourceKey, lang: 'en', window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T00:00:00Z') },
        retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(url).host], refreshAfterMs: 0,
      });
      expect((await runIcsImport(params(oldKey), ctx)).counts.events.created).toBe(10);
      const err = await runIcsImport(params(sourceKeyFrom(url)), ctx).then(() => undefined, (e: unknown) => e as Error & { code?: string });
      expect(err?.code).toBe('source-overlap');
      expect(err?.message).toContain(`Rerun with --source ${oldKey}`);
      expect(env.sandbox.dump('en').events).toHaveLength(10);
    } finally {
      redis.disconnect();
      await env.close();
      await feed.close();
    }
  });

  it('keys of URLs without a secret are as they were (existing imports keep their identity)', () => {
    expect(sourceKeyFrom('https://example.org/events/summer-festival-2024.ics')).toBe('example-org-events-summer-festival-2024');
    expect(sourceKeyFrom('https://example.org/feeds/city.ics?token=abc123')).toBe('example-org-feeds-city');
    expect(sourceKeyFrom('/tmp/My Events.csv')).toBe('my-events');
  });
});
