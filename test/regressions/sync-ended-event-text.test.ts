import { describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { runSiteSync, type SyncParams } from '../../src/runs/sync-site.ts';
import { copiedSlug } from '../../src/sources/site/normalize.ts';
import type { EventRecord } from '../../src/api/index.ts';
import { testPrefix } from '../support/redis.ts';
import { useSitePair, type TestSite } from '../support/site-pair.ts';

/**
 * Found syncing one real TEC site into another: a source event that had already ended arrived with
 * its rendered title and text (`0 - 3` became `0 – 3`, `"x"` became `“x”`), and the report said
 * nothing. A real site's `/wp/v2/tribe_events` list leaves ended events out (the sandbox now does
 * too: test/contract/wp-v2-ended.test.ts), so the sync's raw-text read found none for them.
 */
describe('regression: a sync copied the rendered text of events that had already ended', () => {
  let source: TestSite;
  let target: TestSite;
  let redis: Redis;
  const basic = (s: typeof target) => `Basic ${Buffer.from(`${s.sandbox.user}:${s.sandbox.password}`).toString('base64')}`;
  /** What the target stores, read by id (the list would leave an ended event out). */
  const stored = async (id: number) => {
    const res = await fetch(`${target.sandbox.url}/wp/v2/tribe_events/${id}?context=edit`, { headers: { authorization: basic(target) } });
    const item = (await res.json()) as { title: { raw: string }; content: { raw: string } };
    return { title: item.title.raw, description: item.content.raw };
  };
  const params = (): SyncParams => ({
    from: { ...source.site, key: 'src', name: 'source' },
    to: { ...target.site, concurrency: 4 },
    lang: 'en',
    window: { from: new Date('2020-01-01T00:00:00Z'), to: new Date('2031-12-31T23:59:59Z') },
    retire: 'keep',
    onEdit: 'overwrite',
    dryRun: false,
    settledMs: 0,
  });

  useSitePair((pair) => ({ source, target, redis } = pair));

  it('an ended event and an upcoming one both arrive as typed, without a warning', async () => {
    const typed = { title: `AGF Aarhus 0 - 3 Barça "edited"`, description: `Goles: 0 - 1, it's Giovanni` };
    const ended = await source.client.events.create({ ...typed, start_date: '2020-03-02 19:00:00', end_date: '2020-03-02 21:00:00', timezone: 'Europe/Madrid' } as never);
    const upcoming = await source.client.events.create({ ...typed, start_date: '2031-03-02 19:00:00', end_date: '2031-03-02 21:00:00', timezone: 'Europe/Madrid' } as never);
    expect(ended.title).toBe('AGF Aarhus 0 &#8211; 3 Barça &#8220;edited&#8221;');

    const report = await runSiteSync(params(), { redis, prefix: testPrefix() });
    expect(report.counts.events).toMatchObject({ created: 2, failed: 0 });
    expect(report.warnings).toEqual([]);
    const copies = target.sandbox.dump('en').events as EventRecord[];
    for (const ev of [ended, upcoming]) {
      const copy = copies.find((e) => e.slug === copiedSlug('src', ev.slug!, ev.id))!;
      expect(await stored(copy.id), `source event ${ev.id}`).toEqual(typed);
    }
  });
});
