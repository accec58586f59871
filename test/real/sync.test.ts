import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, CountingProxy, credentials, globals, NO_WRITES, report, writesIn } from './support/cli.ts';
import { expectSameEvents } from './support/compare-sites.ts';
import { realConfig } from './support/config.ts';
import { realSites, SiteApi } from './support/site.ts';

const FEED = fileURLToPath(new URL('./fixtures/festival.ics', import.meta.url));

describe('sync TEC 6.17.2 (site A) → TEC 6.17.1 (site B)', () => {
  const sites = realSites();
  const a = new SiteApi(sites.a);
  const b = new SiteApi(sites.b);
  const proxy = new CountingProxy(sites.b.url);
  let args: string[] = [];
  let env: Record<string, string> = {};
  beforeAll(async () => {
    await Promise.all([a.reset(), b.reset()]);
    const g = globals();
    const imported = await cli([...g, 'import', 'ics', FEED, '--site', sites.a.url, '--namespace', sites.a.namespace, '--window', '2030-01-01..2030-12-31', '--json'], credentials(sites.a));
    expect(imported.code, imported.stderr).toBe(0);
    // What authors type that WordPress renders differently: quotes, dashes, ampersands.
    await a.ok('POST', '/events', { title: `Tom's "late" set -- jazz & blues`, description: '<p>Doors at 8 -- "bring friends" & family</p>', start_date: '2030-06-18 20:00:00', end_date: '2030-06-18 23:00:00', timezone: 'Europe/Berlin', tags: ['jazz'], status: 'publish' });
    const config = realConfig(sites, { bUrl: await proxy.start() });
    env = config.env;
    args = ['--config', config.file, ...g, 'sync', '--from', 'a', '--to', 'b', '--window', '2030-01-01..2030-12-31', '--retire', 'trash', '--json'];
  });
  afterAll(() => proxy.stop());

  it('copies every event field by field, ids remapped (titles exactly as typed)', async () => {
    const r = await cli(args, env);
    expect(r.code, r.stderr).toBe(0);
    expect(report(r).counts.events).toMatchObject({ read: 11, created: 11, failed: 0 });
    expectSameEvents(await a.events(), await b.events());
  });

  it('a resync sends no writes', async () => {
    const before = await b.events();
    proxy.clear();
    const r = await cli(args, env);
    expect(r.code, r.stderr).toBe(0);
    expect(writesIn(report(r))).toEqual(NO_WRITES);
    expect(proxy.writes()).toEqual([]);
    expect((await b.events()).map((e) => [e.id, e.modified_utc])).toEqual(before.map((e) => [e.id, e.modified_utc]));
  });

  it('a title edit, a trashed event, a venue change and a category rename on the source all arrive', async () => {
    const src = await a.events();
    const byTitle = (t: string) => src.find((e) => e.title === t)!;
    // Real sites reset what an update leaves out (the zone falls back to the site's, while the
    // stored UTC instant stays), so a title edit sends the dates and zone along, as an editor's save does.
    const opening = byTitle('Opening night');
    await a.ok('POST', `/events/${opening.id}`, { title: 'Opening night – sold out', start_date: opening.start_date, end_date: opening.end_date, timezone: opening.timezone, all_day: opening.all_day });
    await a.ok('DELETE', `/events/${byTitle('Morning talk after the clock change').id}`);
    const rathaus = (await a.all('venues')).find((v) => v.venue === 'Rathaus')!;
    const closing = byTitle('Closing party past midnight');
    await a.ok('POST', `/events/${closing.id}`, { title: closing.title, start_date: closing.start_date, end_date: closing.end_date, timezone: closing.timezone, all_day: closing.all_day, venue: rathaus.id });
    const talksCat = (await a.all('categories', { hide_empty: 'false' })).find((c) => c.name === 'Music')!;
    await a.ok('POST', `/categories/${talksCat.id}`, { name: 'Live music' });

    const r = await cli(args, env);
    const rep = report(r);
    expect(rep.items.filter((i) => i.outcome === 'failed'), 'failed items').toEqual([]);
    expect(r.code, r.stderr).toBe(0);
    expect(rep.counts.events).toMatchObject({ retired: 1, failed: 0 });
    const target = await b.events();
    expect(target.find((e) => e.title === 'Opening night – sold out')).toBeDefined();
    expect(target.find((e) => e.title === 'Morning talk after the clock change')).toBeUndefined();
    expect(target.find((e) => e.title === 'Closing party past midnight')?.venue?.venue).toBe('Rathaus');
    expect((await b.all('categories', { hide_empty: 'false' })).map((c) => c.name)).toContain('Live music');
    expectSameEvents(await a.events(), target);
  });
});
