// A real The Events Calendar 6.17.2 site (README "Tests against real sites"): events/s of a
// 300-event ICS import, next to the site's own raw create rate at the same concurrency (a bare
// loop of POST /events), and the requests per event. The site is the one CALSYNC_REAL_A_… names,
// else one started through the kit (stopped at the end); without either the scenario is skipped.
import { Redis } from 'ioredis';
import { resolveSite } from '../src/config/sites.ts';
import { runIcsImport, type IcsImportParams } from '../src/runs/import-ics.ts';
import { generateIcsFeed } from '../test/support/generate-ics.ts';
import { mapConcurrent } from '../src/util/pool.ts';
import { kitAvailable, kitScratchDir, kitScript, resetKitSite, sitesFromEnv, startKitSite, stopKit, type RealSite } from '../test/real/support/kit.ts';
import { benchRedis, staticServer } from './env.ts';
import { round, timed, type Scenario } from './lib.ts';

const EVENTS = 300;

/** The site's own create rate: bare POST /events over fetch, `concurrency` at a time. */
async function rawCreateRate(site: RealSite, concurrency: number): Promise<number> {
  const auth = 'Basic ' + Buffer.from(`${site.user}:${site.password}`).toString('base64');
  const url = `${site.url}/${site.namespace}/events`;
  const t = performance.now();
  await mapConcurrent(Array.from({ length: EVENTS }, (_, i) => i), concurrency, async (i) => {
    const day = String(1 + (i % 28)).padStart(2, '0');
    const r = await fetch(url, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: `Raw ${i}`, start_date: `2030-03-${day} 10:00:00`, end_date: `2030-03-${day} 11:00:00`, timezone: 'Europe/Berlin', status: 'publish' }),
    });
    await r.arrayBuffer();
    if (r.status >= 300) throw new Error(`POST ${url}: ${r.status}`);
  });
  return EVENTS / ((performance.now() - t) / 1000);
}

export async function runRealSiteBench(): Promise<Scenario[]> {
  let dir: string | undefined;
  let site = sitesFromEnv()?.a;
  if (!site) {
    if (!kitAvailable()) {
      process.stderr.write(`bench real-site: skipped (no CALSYNC_REAL_A_… site and no kit at ${kitScript()})\n`);
      return [];
    }
    dir = kitScratchDir();
    site = await startKitSite(dir, '6.17.2');
  }
  const reset = () => (site.kit ? resetKitSite(site.kit) : Promise.resolve());
  if (!site.kit) process.stderr.write('bench real-site: the site is given by env and cannot be reset: run it on an empty staging site\n');
  const redisServer = await benchRedis();
  const redis = new Redis(redisServer.url);
  const ics = generateIcsFeed({ events: EVENTS, seed: 11, recurringShare: 0, start: new Date(Date.UTC(2030, 0, 7)) });
  const feed = await staticServer(ics);
  try {
    const resolved = resolveSite(site.url, undefined, { namespace: site.namespace, env: { CALSYNC_USER: site.user, CALSYNC_PASSWORD: site.password } });
    await reset();
    const raw = await rawCreateRate(site, resolved.concurrency);
    await reset();
    const params: IcsImportParams = {
      location: feed.url, site: resolved, sourceKey: 'bench-real', lang: 'en', window: { from: new Date('2030-01-01T00:00:00Z'), to: new Date('2031-12-31T00:00:00Z') },
      retire: 'keep', onEdit: 'overwrite', defaultTimezone: 'UTC', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host], refreshAfterMs: 0,
    };
    const run = await timed(() => runIcsImport(params, { redis }));
    const created = run.value.counts.events.created;
    if (created !== EVENTS || run.value.counts.events.failed) throw new Error(`real-site import: ${JSON.stringify(run.value.counts.events)}`);
    const rate = created / (run.ms / 1000);
    await reset();
    const tag = `TEC ${site.version}, c=${resolved.concurrency}`;
    return [
      { name: `real site (${tag}): raw POST /events`, figure: round(raw, 1), unit: 'events/s' },
      { name: `real site (${tag}): ICS import of ${EVENTS} events end-to-end`, figure: round(rate, 1), unit: 'events/s', reference: 'raw POST /events', ratio: round(rate / raw, 2) },
      { name: 'real site: requests per new event (incl. terms, venues, organizers)', figure: round((run.value.requests?.total ?? 0) / created, 2), unit: 'req/event' },
    ];
  } finally {
    await feed.close();
    await redis.quit();
    await redisServer.stop();
    if (dir) await stopKit(dir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await runRealSiteBench();
  console.log(s.map((x) => `${x.name}: ${x.figure} ${x.unit}${x.ratio !== undefined ? ` (×${x.ratio} of ${x.reference})` : ''}`).join('\n'));
  process.exit(0);
}
