import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { resolveSite } from '../src/config/sites.ts';
import { runIcsImport, type IcsImportParams } from '../src/runs/import-ics.ts';
import { generateIcsFeed } from '../test/support/generate-ics.ts';
import { normalizeIcs } from '../src/sources/ics/index.ts';
import { mapConcurrent } from '../src/util/pool.ts';
import { benchRedis, PASSWORD, sandboxProcess, staticServer, USER } from './env.ts';
import { inChild, round, timed, withCpuShares, type Scenario } from './lib.ts';

const AUTH = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

/** The ceiling: bare by-slug updates of existing events over keep-alive connections, no calsync code. */
export async function rawUpsertRate(url: string, n = 2000, concurrency = 8): Promise<number> {
  const u = new URL(url);
  const pool = new Pool(u.origin, { connections: concurrency });
  const base = `${u.pathname}/calendar/events/v1/events`;
  const body = (i: number) => JSON.stringify({ title: `Raw ${i}`, start_date: '2025-06-01 10:00:00', end_date: '2025-06-01 11:00:00', timezone: 'UTC', slug: `raw-${i}` });
  const send = async (path: string, b: string) => {
    const r = await pool.request({ method: 'POST', path, headers: { authorization: AUTH, 'content-type': 'application/json' }, body: b });
    await r.body.dump();
    if (r.statusCode >= 300) throw new Error(`raw request ${path}: ${r.statusCode}`);
  };
  const ids = Array.from({ length: 200 }, (_, i) => i);
  await mapConcurrent(ids, concurrency, (i) => send(base, body(i)));
  const t = performance.now();
  await mapConcurrent(Array.from({ length: n }, (_, i) => i), concurrency, (i) => send(`${base}/by-slug/raw-${i % 200}`, body(i % 200)));
  const rate = n / ((performance.now() - t) / 1000);
  await pool.close();
  return rate;
}

/** `bigFeedMb: 0` leaves out the large-feed parse (run on its own: it is the slowest part). */
export async function runImportIcsBench(opts: { events?: number; bigFeedMb?: number } = {}): Promise<Scenario[]> {
  const vevents = opts.events ?? 6000;
  const sandbox = await sandboxProcess();
  const redisServer = await benchRedis();
  const redis = new Redis(redisServer.url);
  const ics = generateIcsFeed({ events: vevents, seed: 7, recurringShare: 0.1, start: new Date(Date.UTC(2025, 0, 6)) });
  const feed = await staticServer(ics);
  const out: Scenario[] = [];
  try {
    const raw = await withCpuShares(sandbox.child.pid, () => rawUpsertRate(sandbox.url));
    const ceiling = raw.value;
    out.push({ name: 'sandbox raw by-slug upsert (ceiling), c=8', figure: round(ceiling, 0), unit: 'req/s' });
    out.push({ name: 'raw upsert: sandbox process CPU (cores busy)', figure: raw.childShare ?? NaN, unit: 'cores', reference: `bench process ${raw.selfShare} cores` });

    const window = { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2026-06-30T00:00:00Z') };
    const site = resolveSite(sandbox.url, undefined, { env: { CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD } });
    const params: IcsImportParams = {
      location: feed.url, site, sourceKey: 'bench', lang: 'en', window, retire: 'keep', onEdit: 'overwrite', defaultTimezone: 'UTC',
      status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host], refreshAfterMs: 0,
    };
    const parse = await timed(async () => normalizeIcs(new TextEncoder().encode(ics), { sourceKey: 'bench', sourceName: 'bench', window }));
    const occurrences = parse.value.summary.occurrences;
    await sandbox.resetStats();
    const first = await withCpuShares(sandbox.child.pid, () => runIcsImport(params, { redis }));
    const created = first.value.counts.events.created;
    const rate = created / (first.ms / 1000);
    out.push({ name: `ICS import end-to-end (${created} events from ${vevents} VEVENTs, 5 zones, 10% weekly series)`, figure: round(rate, 0), unit: 'events/s', reference: 'raw upsert ceiling', ratio: round(rate / ceiling, 2) });
    out.push({ name: 'ICS import: sandbox process CPU (cores busy)', figure: first.childShare ?? NaN, unit: 'cores', reference: `calsync process ${first.selfShare} cores (main + parser thread)` });
    const requestsPerEvent = (await sandbox.stats()).total / created;
    out.push({ name: 'ICS import: site requests per new event (incl. terms, venues, organizers)', figure: round(requestsPerEvent, 2), unit: 'req/event' });
    await sandbox.resetStats();
    const again = await timed(() => runIcsImport(params, { redis }));
    const writes = (await sandbox.stats()).writes;
    out.push({ name: `unchanged re-import of the same ${occurrences}-occurrence feed: writes`, figure: writes, unit: 'writes' });
    out.push({ name: 'unchanged re-import: time', figure: round(again.ms, 0), unit: 'ms', reference: `parse+normalize alone ${round(parse.ms, 0)} ms`, ratio: round(again.ms / parse.ms, 2) });
    if (again.value.counts.events.unchanged !== created) throw new Error(`re-import saw ${again.value.counts.events.unchanged} unchanged of ${created}`);

    const bigMb = opts.bigFeedMb ?? 20;
    if (bigMb <= 0) return out;
    const big = await inChild<{ mb: number; ms: number; cpuMs: number; rss: number; occurrences: number; baselineRss: number }>('./ics-parse-child.ts', [String(bigMb)]);
    out.push({ name: `parse+normalize a ${big.mb} MB feed (${big.occurrences} occurrences)`, figure: round(big.ms / 1000, 2), unit: 's', reference: `its CPU time ${round(big.cpuMs / 1000, 2)} s`, ratio: round(big.cpuMs / big.ms, 2) });
    out.push({ name: `parse+normalize ${big.mb} MB: peak RSS`, figure: big.rss, unit: 'MiB', reference: `RSS before parsing ${big.baselineRss} MiB`, ratio: round(big.rss / big.baselineRss, 2) });
    const growth = round(big.rss - big.baselineRss, 1);
    out.push({ name: `parse+normalize ${big.mb} MB: peak RSS growth over the RSS before parsing`, figure: growth, unit: 'MiB', reference: `file ${big.mb} MiB`, ratio: round(growth / big.mb, 2) });
  } finally {
    await feed.close();
    await redis.quit();
    await redisServer.stop();
    await sandbox.stop();
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const s = await runImportIcsBench({ events: arg('events') ? Number(arg('events')) : undefined, bigFeedMb: arg('big-mb') ? Number(arg('big-mb')) : undefined });
  console.log(process.argv.includes('--json') ? JSON.stringify(s) : s.map((x) => `${x.name}: ${x.figure} ${x.unit}${x.ratio !== undefined ? ` (×${x.ratio} of ${x.reference})` : ''}`).join('\n'));
}
