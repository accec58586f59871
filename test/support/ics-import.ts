import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { RunContext } from '../../src/runs/context.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { capturedLog, reusedGroups } from './log.ts';
import { testPrefix, testRedis } from './redis.ts';
import { feedServer, testSite } from './site.ts';

type Site = Awaited<ReturnType<typeof testSite>>;
type Feed = Awaited<ReturnType<typeof feedServer>>;

export interface IcsImportSuite {
  /** This test's sandbox site, new for each test. */
  readonly env: Site;
  readonly redis: Redis;
  /** The feed server, back on `initialFeed` at the start of each test. */
  readonly feed: Feed;
  /** This test's run context: its own Redis prefix and a log it can read back. */
  readonly ctx: RunContext;
  /** Imports the feed into the site in this test's context: source `talks`, English, 2027, with `over` on top. */
  run(over?: Partial<IcsImportParams>): Promise<ReportJson>;
  /** The parameters run() imports with. */
  params(over?: Partial<IcsImportParams>): IcsImportParams;
  /** UID groups reused by each run of this test so far, from their log lines. */
  reused(): number[];
}

/**
 * Registers, in the calling describe block, the set-up of an ICS import test that runs again and again
 * on a fresh site per test: one Redis connection and one feed server for the file; a new sandbox site,
 * Redis prefix and captured log for each test.
 */
export function icsImportSuite(initialFeed: string): IcsImportSuite {
  let env: Site;
  let redis: Redis;
  let feed: Feed;
  let ctx: RunContext;
  let logText: () => string;
  beforeAll(async () => {
    redis = testRedis();
    feed = await feedServer(initialFeed);
  });
  beforeEach(async () => {
    await env?.close();
    env = await testSite();
    feed.set(initialFeed);
    const captured = capturedLog();
    logText = captured.text;
    ctx = { redis, prefix: testPrefix(), log: captured.log };
  });
  afterAll(async () => {
    redis.disconnect();
    await feed.close();
    await env.close();
  });
  const params = (over: Partial<IcsImportParams> = {}): IcsImportParams => ({
    location: feed.url, site: env.site, sourceKey: 'talks', lang: 'en', window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T00:00:00Z') },
    retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host], refreshAfterMs: 0, ...over,
  });
  return {
    get env() { return env; },
    get redis() { return redis; },
    get feed() { return feed; },
    get ctx() { return ctx; },
    params,
    run: (over = {}) => runIcsImport(params(over), ctx),
    reused: () => reusedGroups(logText()),
  };
}
