import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { cli, credentials, FeedServer, globals, report, type CliResult } from './support/cli.ts';
import { realSites, SiteApi, type RealSite } from './support/site.ts';

/**
 * test/regressions/site-reset-ledger-kept.test.ts on real TEC sites, both versions, as a user runs
 * it: a site reset by the kit (its database restored: the ids are handed out again) while
 * calsync's Redis is kept. The rerun of the same feed said "file unchanged since the last run:
 * nothing to do" and left the site empty; now it writes every event again, once, and says why.
 */

const WINDOW = ['--window', '2031-01-01..2031-12-31'];
const FEED = generateIcsFeed({ events: 10, seed: 5, start: new Date(Date.UTC(2031, 2, 3)), days: 120, recurringShare: 0.2 });

describe.each([['A', () => realSites().a], ['B', () => realSites().b]] as const)('a site reset while Redis was kept, site %s', (_name, which) => {
  let site: RealSite;
  let api: SiteApi;
  const feed = new FeedServer();
  let feedUrl = '';
  let g: string[] = [];

  beforeAll(async () => {
    site = which();
    api = new SiteApi(site);
    await api.reset();
    feed.body = FEED;
    feedUrl = await feed.start();
    g = globals();
  });
  afterAll(async () => {
    await feed.stop();
  });

  const run = (): Promise<CliResult> => cli([...g, 'import', 'ics', feedUrl, '--site', site.url, '--namespace', site.namespace, '--allow', new URL(feedUrl).host, ...WINDOW, '--json'], credentials(site));

  it('the rerun after the reset writes every event again, once, and the one after it has nothing to do', async () => {
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    const created = report(first).counts.events.created;
    expect(created).toBeGreaterThan(10);

    await api.reset();
    expect(await api.events('2031-01-01', '2031-12-31')).toHaveLength(0);
    const again = await run();
    expect(again.code, again.stderr).toBe(0);
    const rep = report(again);
    expect(rep.counts.events).toMatchObject({ created, unchanged: 0, failed: 0 });
    expect(rep.warnings.filter((w) => /^the site no longer has the events calsync wrote there/.test(w))).toHaveLength(1);
    const events = await api.events('2031-01-01', '2031-12-31');
    expect(events).toHaveLength(created);
    expect(new Set(events.map((e) => e.slug)).size).toBe(created);

    const third = await run();
    expect(third.code, third.stderr).toBe(0);
    expect(report(third).notModified).toBe(true);
    expect(report(third).warnings.filter((w) => w.includes('no longer has'))).toEqual([]);
  });
});
