import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { resolveSite } from '../../src/config/sites.ts';
import { sourceKeyFrom } from '../../src/model/identity.ts';
import type { RunContext } from '../../src/runs/context.ts';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { PASSWORD, USER, feedServer, testSite } from '../support/site.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

/**
 * Found trying calsync as a new user against a real TEC site: a CLI trial (`import ics <url> --site
 * http://…/wp-json`), then the same feed as a config source on a config site naming that REST root.
 * The README promises that second key is refused before any write ("a CLI trial, then a config
 * source"); the config run created every event a second time instead, because the two runs kept
 * their ledgers under two site keys (the URL's key and the config name) and the check looked only
 * under its own.
 */

const vevent = (uid: string, day: number) => [
  'BEGIN:VEVENT', `UID:${uid}`, `SUMMARY:Talk ${uid}`, `DTSTART:202705${String(day).padStart(2, '0')}T190000Z`, `DTEND:202705${String(day).padStart(2, '0')}T200000Z`, 'END:VEVENT',
];
const calendar = (uids: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', ...uids.flatMap((u, i) => vevent(u, 1 + (i % 28))), 'END:VCALENDAR', ''].join('\r\n');
const TALKS = Array.from({ length: 20 }, (_, i) => `talk-${i}@example.org`);
const ENV = { CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD, CITY_PW: PASSWORD };

describe('regression: a CLI trial by site URL, then a config source on a config site naming that URL, created every event twice', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let feed: Awaited<ReturnType<typeof feedServer>>;
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
    feed = await feedServer(calendar(TALKS));
  });
  afterAll(async () => {
    redis.disconnect();
    await feed.close();
    await env.close();
  });

  // The config a user writes after the trial: their site under a name, with a slash at the end of its REST root.
  const config = () => parseConfig({ sites: [{ name: 'city', restRoot: `${env.sandbox.url}/`, auth: { user: USER, passwordEnv: 'CITY_PW' } }] });
  const params = (site: string, sourceKey: string): IcsImportParams => ({
    location: feed.url, site: resolveSite(site, config(), { env: ENV }), sourceKey, lang: 'en', window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T00:00:00Z') },
    retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allowFiles: true,
    allow: [new URL(feed.url).host], refreshAfterMs: 0,
  });
  const events = () => env.sandbox.dump('en').events as { slug: string }[];
  const refusal = (p: IcsImportParams, ctx: RunContext) => runIcsImport(p, ctx).then(() => undefined, (e: unknown) => e as Error & { code?: string });

  it('the config source after the URL trial is refused, naming the trial\'s key, and writes nothing; under that key it updates in place', async () => {
    const ctx = { redis, prefix: testPrefix() };
    const trialKey = sourceKeyFrom(feed.url);
    const trial = await runIcsImport(params(env.sandbox.url, trialKey), ctx);
    expect(trial.counts.events.created).toBe(20);

    const err = await refusal(params('city', 'theatre'), ctx);
    expect(err?.code).toBe('source-overlap');
    expect(err?.message).toContain(`was already imported as source "${trialKey}"`);
    expect(err?.message).toContain(`name it "${trialKey}"`);
    expect(events()).toHaveLength(20);

    const named = await runIcsImport(params('city', trialKey), ctx);
    expect(named.counts.events).toMatchObject({ read: 20, created: 0, failed: 0 });
    expect(events()).toHaveLength(20);
  });

  it('the other way round: a CLI trial by URL after the config source is refused too', async () => {
    const ctx = { redis, prefix: testPrefix() };
    const before = events().length;
    const first = await runIcsImport(params('city', 'festival'), ctx);
    expect(first.counts.events.created).toBe(20);
    const err = await refusal(params(env.sandbox.url, sourceKeyFrom(feed.url)), ctx);
    expect(err?.code).toBe('source-overlap');
    expect(err?.message).toContain('was already imported as source "festival"');
    expect(events()).toHaveLength(before + 20);
  });
});
