import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../../src/api/index.ts';
import { runSiteSync } from '../../src/runs/sync-site.ts';
import { testPrefix } from '../support/redis.ts';
import { seedSite } from '../support/seed.ts';
import { pairSyncParams, useSitePair, type SitePair } from '../support/site-pair.ts';

/**
 * Found trying calsync against two real TEC sites as a user would: a category deleted on the sync's
 * target. The resync took the category's target id from its Redis term map without a look at the
 * target, reported the category unchanged, and wrote an edited source event with the dead id, which
 * the site drops without a word: the event lost its category on the target, and the events not
 * written kept going without it. An import (which lists the site's terms every run) made the
 * category again. Now the sync checks the map's ids against one listing of the target's terms and
 * makes the category again too, relinking every event that names it.
 */
describe('regression: a category deleted on the sync target stayed gone from its events, reported unchanged', () => {
  let pair: SitePair;
  useSitePair((p) => (pair = p));

  it('the resync makes the category again and every event naming it carries it', async () => {
    const { source, target, redis } = pair;
    const seeded = await seedSite(source.client, ['en'], 12);
    const prefix = testPrefix();
    const params = pairSyncParams(pair);
    const live = () => (target.sandbox.dump('en').events as EventRecord[]).filter((e) => e.status !== 'trash');
    const named = (name: string) => live().filter((e) => e.categories.some((c) => c.name === name));
    expect((await runSiteSync(params, { redis, prefix })).counts.events.created).toBe(12);
    const carrying = named('Sport en').map((e) => e.slug).sort();
    expect(carrying.length).toBeGreaterThan(0);

    const sport = (target.sandbox.dump('en').categories as Array<{ id: number; name: string }>).find((c) => c.name === 'Sport en')!;
    await target.client.categories.delete(sport.id, { force: true } as never);
    expect(named('Sport en')).toEqual([]);
    // One source event edited: it is written by the resync, the others are not.
    const edited = seeded.en!.events.find((e) => e.categories.some((c) => c.name === 'Sport en'))!;
    await source.client.events.update(edited.id, { title: `${edited.title} (edited)`, start_date: edited.start_date, end_date: edited.end_date, timezone: edited.timezone, categories: edited.categories.map((c) => c.id), tags: edited.tags.map((t) => t.id) } as never, { lang: 'en' });

    const r = await runSiteSync(params, { redis, prefix });
    expect(r.counts.categories.created).toBe(1);
    expect(r.counts.events.failed).toBe(0);
    expect(named('Sport en').map((e) => e.slug).sort()).toEqual(carrying);
  });
});
