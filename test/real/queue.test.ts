import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.ts';
import { cli, FeedServer, NO_WRITES, report, writesIn } from './support/cli.ts';
import { expectSameEvents } from './support/compare-sites.ts';
import { realConfig } from './support/config.ts';
import { expectEventMatches, feedOccurrences, findOnSite } from './support/feed.ts';
import { readFileSync } from 'node:fs';
import { realSites, SiteApi } from './support/site.ts';

const FEED = fileURLToPath(new URL('./fixtures/festival.ics', import.meta.url));

describe('the queue path: calsync enqueue … --wait with a real worker process and redis-server', () => {
  const sites = realSites();
  const a = new SiteApi(sites.a);
  const b = new SiteApi(sites.b);
  const prefix = testPrefix();
  const feed = new FeedServer();
  let config: ReturnType<typeof realConfig>;
  let worker: WorkerProcess;
  const enqueue = (...args: string[]) => cli(['--config', config.file, '--redis', redisUrl(), '--prefix', prefix, 'enqueue', ...args, '--wait', '--json'], config.env);
  beforeAll(async () => {
    await Promise.all([a.reset(), b.reset()]);
    feed.body = readFileSync(FEED, 'utf8');
    config = realConfig(sites, { feedUrl: await feed.start() });
    worker = spawnWorker({ config: config.file, redisUrl: redisUrl(), prefix, env: config.env });
  });
  afterAll(async () => {
    await worker?.kill('SIGTERM');
    await feed.stop();
  });

  it('import-ics of a configured feed (loopback, allowed in the config) into site A through the worker', async () => {
    const r = await enqueue('import-ics', '--name', 'festival');
    expect(r.code, `${r.stderr}\nworker: ${worker.output()}`).toBe(0);
    expect(report(r).counts.events).toMatchObject({ read: 10, created: 10, failed: 0 });
    const site = await a.events();
    for (const o of feedOccurrences(readFileSync(FEED, 'utf8'), new Date('2030-01-01T00:00:00Z'), new Date('2030-12-31T23:59:59Z'))) expectEventMatches(findOnSite(site, o)!, o);
  });

  it('sync-site A → B through the worker, then again with nothing to write', async () => {
    const r = await enqueue('sync-site', '--name', 'a-to-b');
    expect(r.code, `${r.stderr}\nworker: ${worker.output()}`).toBe(0);
    expect(report(r).counts.events).toMatchObject({ read: 10, created: 10, failed: 0 });
    expectSameEvents(await a.events(), await b.events());
    const again = await enqueue('sync-site', '--name', 'a-to-b');
    expect(again.code, again.stderr).toBe(0);
    expect(writesIn(report(again))).toEqual(NO_WRITES);
  });
});
