/**
 * A real The Events Calendar 6.17.2 site (README "Tests against real sites"): events/s of a
 * 300-event ICS import, next to two references measured in the same run at the same concurrency,
 * each on a freshly reset site:
 *
 * - **minimal bodies**: a bare loop of `POST /events` with title, dates, zone and status only.
 *   The site's cheapest create: it leaves out everything that makes the site work per event
 *   (description, URLs, cost, categories, the venue and organizer links) and creates no venue,
 *   organizer or term. An import of the real feed cannot reach it; it is the site's ceiling.
 * - **same bodies**: the event bodies calsync itself sent in this run's import (recorded by a
 *   loopback proxy, bench/real-site-replay.ts), POSTed by a bare loop against a site that already
 *   holds the run's venues, organizers and categories (created by bare POSTs just before, old ids
 *   mapped to new). It measures what the site can do with exactly these events: a write path that
 *   wasted none of the site's capacity on events would match it. calsync's import also creates
 *   the venues and organizers (inside the first event that links each) and the terms, so the
 *   import does more site work than this reference; the **same bodies + linked creates**
 *   figure adds the bare loop's time for creating those records (one standalone POST each, at the
 *   same concurrency) and bounds that work from above.
 *
 * Every request of all three goes through the same recording proxy (one loopback hop, well under
 * a millisecond next to the site's hundreds), so the ratios compare like with like. The import's
 * own requests are also laid out as a timeline from the client's request hook: the time before
 * its first event write (site check, fetch, parse, listings, terms), the requests in flight during
 * the event writes, and the drain after the last one left.
 *
 * The site is the one CALSYNC_REAL_A_… names (a kit env file keeps it resettable), else one
 * started through the kit (stopped at the end); without either the scenario is skipped.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { RequestInfo } from '../src/api/index.ts';
import { resolveSite } from '../src/config/sites.ts';
import { runIcsImport, type IcsImportParams } from '../src/runs/import-ics.ts';
import { eventBody } from '../src/write/body.ts';
import type { EventDraft } from '../src/model/draft.ts';
import { generateIcsFeed } from '../test/support/generate-ics.ts';
import { mapConcurrent } from '../src/util/pool.ts';
import { kitAvailable, kitScratchDir, kitScript, resetKitSite, sitesFromEnv, startKitSite, stopKit, type RealSite } from '../test/real/support/kit.ts';
import { benchRedis, staticServer } from './env.ts';
import { likeTheCli, round, timed, type Scenario } from './lib.ts';
import { prepareReplay, recordingProxy, replayEvents, replayLinked, type BareSite } from './real-site-replay.ts';
import { inFlight } from './slow-site.ts';
import { cpuSeconds, cpuShares } from './cpu-share.ts';

const EVENTS = 300;
/** (bare loop, import) pairs, pooled (measure()). */
const ROUNDS = 2;

/**
 * What calsync states in every event body beyond the minimal one, for an event with no text, terms,
 * venue or organizer (src/write/body.ts: every update must state each field, the site resets the
 * others): sent on its own, it shows what those fields cost the site, apart from the event's data.
 */
const STATED = (() => {
  const { title: _t, start_date: _s, end_date: _e, timezone: _z, status: _st, all_day: _a, ...rest } = eventBody({ title: 'x', start_date: '', end_date: '', timezone: 'UTC', all_day: false } as EventDraft, { categories: [], tags: [], organizers: [] });
  return rest;
})();

/** The site's own create rate for minimal events (with `extra` fields): bare POST /events, `concurrency` at a time. */
async function rawCreateRate(site: BareSite, concurrency: number, extra: Record<string, unknown> = {}): Promise<number> {
  const url = `${site.api}/events`;
  const t = performance.now();
  await mapConcurrent(Array.from({ length: EVENTS }, (_, i) => i), concurrency, async (i) => {
    const day = String(1 + (i % 28)).padStart(2, '0');
    const r = await fetch(url, {
      method: 'POST',
      headers: { Authorization: site.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...extra, title: `Raw ${i}`, start_date: `2030-03-${day} 10:00:00`, end_date: `2030-03-${day} 11:00:00`, timezone: 'Europe/Berlin', status: 'publish' }),
    });
    await r.arrayBuffer();
    if (r.status >= 300) throw new Error(`POST ${url}: ${r.status}`);
  });
  return EVENTS / ((performance.now() - t) / 1000);
}

/**
 * The kit site's processes: its php -S server's process group (the server forks its workers) and
 * the kit's MariaDB. Their CPU per event is what an event cost the site, whoever else had the
 * machine's cores at the time (the figure the shared machine's noise moves least).
 */
function kitSitePids(site: RealSite): number[] {
  if (!site.kit) return [];
  const read = (f: string) => {
    try {
      return Number(readFileSync(path.join(site.kit!.dir, 'run', f), 'utf8').trim());
    } catch {
      return 0;
    }
  };
  const php = read(`php-${site.kit.port}.pid`);
  const pids = [read('mysqld.pid')];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const rest = readFileSync(`/proc/${d}/stat`, 'utf8').split(') ').pop()!.split(' ');
      if (Number(rest[2]) === php) pids.push(Number(d)); // field 5: process group
    } catch {
      // gone meanwhile
    }
  }
  return pids.filter((p) => p > 0);
}

/**
 * Runs `fn` and returns its result, its wall time, the site's CPU seconds meanwhile and this
 * process's (all its threads: the import's parser thread, and the proxy, which every phase pays alike).
 */
async function onSite<T>(pids: number[], fn: () => Promise<T>): Promise<{ value: T; ms: number; cpuS: number; ownS: number }> {
  const site = cpuShares({ site: pids });
  const own = cpuShares({ own: [process.pid] });
  const r = await timed(fn);
  return { ...r, cpuS: cpuSeconds(site()), ownS: cpuSeconds(own()) };
}

type Kind = 'listing' | 'term' | 'linked' | 'event' | 'other';
interface Span {
  start: number;
  end: number;
  kind: Kind;
}

function kindOf(r: RequestInfo): Kind {
  if (r.method === 'GET') return 'listing';
  if (r.route.startsWith('/events')) return 'event';
  if (r.route.startsWith('/categories') || r.route.startsWith('/tags')) return 'term';
  if (r.route.startsWith('/venues') || r.route.startsWith('/organizers')) return 'linked';
  return 'other';
}

/** Where the import's wall time went, from its request intervals (times relative to the run's start). */
function timeline(spans: Span[], wallMs: number, concurrency: number) {
  const events = spans.filter((s) => s.kind === 'event');
  const firstEvent = Math.min(...events.map((s) => s.start));
  const lastEventStart = Math.max(...events.map((s) => s.start));
  const lastEnd = Math.max(...spans.map((s) => s.end));
  const writes = inFlight(spans.map((x) => ({ start: x.start, end: x.end, write: x.kind === 'event' })), firstEvent, lastEventStart);
  return { firstEvent, lastEventStart, lastEnd, drain: lastEnd - lastEventStart, after: wallMs - lastEnd, mean: writes.mean, concurrency };
}

async function importOnce(site: RealSite, proxyRoot: string, spans: Span[]) {
  const redisServer = await benchRedis();
  const redis = new Redis(redisServer.url);
  const ics = generateIcsFeed({ events: EVENTS, seed: 11, recurringShare: 0, start: new Date(Date.UTC(2030, 0, 7)) });
  const feed = await staticServer(ics);
  try {
    let t0 = 0;
    const onRequest = (r: RequestInfo) => {
      const end = performance.now() - t0;
      spans.push({ start: end - r.durationMs, end, kind: kindOf(r) });
    };
    const base = resolveSite(proxyRoot, undefined, { namespace: site.namespace, env: { CALSYNC_USER: site.user, CALSYNC_PASSWORD: site.password } });
    const resolved = { ...base, connection: { ...base.connection, onRequest } };
    const params: IcsImportParams = {
      location: feed.url, site: resolved, sourceKey: 'bench-real', lang: 'en', window: { from: new Date('2030-01-01T00:00:00Z'), to: new Date('2031-12-31T00:00:00Z') },
      retire: 'keep', onEdit: 'overwrite', defaultTimezone: 'UTC', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host], refreshAfterMs: 0,
    };
    t0 = performance.now();
    const run = await timed(() => runIcsImport(params, { redis }));
    const created = run.value.counts.events.created;
    if (created !== EVENTS || run.value.counts.events.failed) throw new Error(`real-site import: ${JSON.stringify(run.value.counts.events)}`);
    return { ms: run.ms, created, requests: run.value.requests?.total ?? 0, concurrency: resolved.concurrency };
  } finally {
    await feed.close();
    await redis.quit();
    await redisServer.stop();
  }
}

type Imported = Awaited<ReturnType<typeof importOnce>>;
type Measured<T> = Awaited<ReturnType<typeof onSite<T>>>;

/**
 * Every round's bare loop and import as one of each: events over time, CPU summed (the import's
 * other fields from the last round); and each round's import/minimal ratio, to show the spread.
 */
function pooled(rounds: Array<{ raw: Measured<number>; run: Measured<Imported> }>) {
  const sum = (f: (r: (typeof rounds)[number]) => number) => rounds.reduce((a, r) => a + f(r), 0);
  const last = rounds.at(-1)!;
  const rawMs = sum((r) => (EVENTS / r.raw.value) * 1000);
  const raw = { value: (rounds.length * EVENTS) / (rawMs / 1000), ms: rawMs, cpuS: sum((r) => r.raw.cpuS), ownS: sum((r) => r.raw.ownS) };
  const value = { ...last.run.value, created: sum((r) => r.run.value.created), ms: sum((r) => r.run.value.ms) };
  const run = { value, ms: sum((r) => r.run.ms), cpuS: sum((r) => r.run.cpuS), ownS: sum((r) => r.run.ownS) };
  const perRound = rounds.map((r) => round(r.run.value.created / (r.run.value.ms / 1000) / r.raw.value, 2));
  return { raw, run, perRound, last: last.run.value };
}

async function measure(site: RealSite): Promise<Scenario[]> {
  const reset = () => (site.kit ? resetKitSite(site.kit) : Promise.resolve());
  await likeTheCli();
  const proxy = await recordingProxy(new URL(site.url).origin);
  try {
    const proxyRoot = proxy.url + new URL(site.url).pathname;
    const bare: BareSite = { api: `${proxyRoot}/${site.namespace}`, auth: 'Basic ' + Buffer.from(`${site.user}:${site.password}`).toString('base64') };
    const concurrency = resolveSite(site.url, undefined, { namespace: site.namespace }).concurrency;
    const pids = kitSitePids(site);
    // Rounds of (bare minimal loop, import), each on a reset site: the site's CPU per create moves
    // by a fifth and more between runs on this shared machine, so one pair compared two moments.
    // The rates pool every round; the replay and the timeline take the last import.
    const rounds: Array<{ raw: Measured<number>; run: Measured<Imported> }> = [];
    let spans: Span[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      await reset();
      const raw = await onSite(pids, () => rawCreateRate(bare, concurrency));
      await reset();
      proxy.exchanges.length = 0;
      spans = [];
      const into = spans;
      rounds.push({ raw, run: await onSite(pids, () => importOnce(site, proxyRoot, into)) });
    }
    const { raw, run, perRound, last } = pooled(rounds);
    const rate = run.value.created / (run.value.ms / 1000);
    const plan = prepareReplay(proxy.exchanges, site.namespace);
    await reset();
    const linked = await onSite(pids, () => replayLinked(bare, plan, concurrency));
    const same = await onSite(pids, () => replayEvents(bare, plan, linked.value, concurrency));
    await reset();
    const stated = await onSite(pids, () => rawCreateRate(bare, concurrency, STATED));
    await reset();
    const sameRate = plan.events.length / (same.ms / 1000);
    const withLinked = plan.events.length / ((same.ms + linked.ms) / 1000);
    const t = timeline(spans, last.ms, last.concurrency);
    const perEvent = (cpuS: number, n: number) => round((cpuS * 1000) / n, 0);
    const cpuRaw = perEvent(raw.cpuS, ROUNDS * EVENTS);
    const cpuSame = perEvent(same.cpuS, plan.events.length);
    const cpuLinked = perEvent(same.cpuS + linked.cpuS, plan.events.length);
    const cpuImport = perEvent(run.cpuS, run.value.created);
    const tag = `TEC ${site.version}, c=${concurrency}`;
    const s = (ms: number) => round(ms / 1000, 2);
    return [
      { name: `real site (${tag}): raw POST /events, minimal bodies (${ROUNDS} rounds, pooled)`, figure: round(raw.value, 1), unit: 'events/s' },
      { name: `real site (${tag}): raw POST /events, calsync's bodies, linked records present`, figure: round(sameRate, 1), unit: 'events/s', reference: 'minimal bodies', ratio: round(sameRate / raw.value, 2) },
      { name: `real site (${tag}): same, counting the bare creates of its ${plan.linked.length} venues/organizers/terms`, figure: round(withLinked, 1), unit: 'events/s', reference: `linked creates ${s(linked.ms)} s` },
      { name: `real site (${tag}): ICS import of ${EVENTS} events end-to-end (${ROUNDS} rounds, pooled)`, figure: round(rate, 1), unit: 'events/s', reference: `raw, minimal bodies (rounds: ${perRound.join(', ')})`, ratio: round(rate / raw.value, 2) },
      { name: `real site (${tag}): ICS import vs raw POST of the same bodies`, figure: round(rate, 1), unit: 'events/s', reference: `same bodies ${round(sameRate, 1)}`, ratio: round(rate / sameRate, 2) },
      { name: `real site (${tag}): ICS import vs same bodies + bare linked creates`, figure: round(rate, 1), unit: 'events/s', reference: `${round(withLinked, 1)}`, ratio: round(rate / withLinked, 2) },
      { name: 'real site: import before its first event write (site check, fetch, parse, listings, terms)', figure: s(t.firstEvent), unit: 's', reference: `whole run ${s(last.ms)} s (last round)`, ratio: round(t.firstEvent / last.ms, 3) },
      { name: 'real site: import, requests in flight from the first event write to the last one sent', figure: round(t.mean, 2), unit: 'in flight', reference: `configured ${concurrency}`, ratio: round(t.mean / concurrency, 2) },
      { name: 'real site: import, drain after the last event write was sent / after the last answer', figure: s(t.drain), unit: 's', reference: `then ${s(t.after)} s to the end of the run` },
      { name: 'real site: requests per new event (incl. terms, venues, organizers)', figure: round(last.requests / last.created, 2), unit: 'req/event' },
      { name: 'real site: site CPU per event (php + MariaDB), raw minimal bodies', figure: cpuRaw, unit: 'ms/event' },
      { name: 'real site: site CPU per event, raw minimal bodies + the fields calsync always states (no event data)', figure: perEvent(stated.cpuS, EVENTS), unit: 'ms/event', reference: `minimal ${cpuRaw}; ${round(stated.value, 1)} events/s`, ratio: round(perEvent(stated.cpuS, EVENTS) / cpuRaw, 2) },
      { name: 'real site: site CPU per event, raw same bodies (linked records present)', figure: cpuSame, unit: 'ms/event', reference: `minimal ${cpuRaw}`, ratio: round(cpuSame / cpuRaw, 2) },
      { name: 'real site: site CPU per event, raw same bodies + bare linked creates', figure: cpuLinked, unit: 'ms/event', reference: `minimal ${cpuRaw}`, ratio: round(cpuLinked / cpuRaw, 2) },
      { name: 'real site: site CPU per event, ICS import (linked records created inline)', figure: cpuImport, unit: 'ms/event', reference: `same bodies ${cpuSame}`, ratio: round(cpuImport / cpuSame, 2) },
      { name: 'real site: this process\'s CPU per event, ICS import (calsync + proxy)', figure: perEvent(run.ownS, run.value.created), unit: 'ms/event', reference: `bare same-bodies loop + proxy ${perEvent(same.ownS, plan.events.length)}` },
    ];
  } finally {
    await proxy.close();
  }
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
  if (!site.kit) process.stderr.write('bench real-site: the site is given by env and cannot be reset: run it on an empty staging site\n');
  try {
    return await measure(site);
  } finally {
    if (dir) await stopKit(dir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await runRealSiteBench();
  console.log(s.map((x) => `${x.name}: ${x.figure} ${x.unit}${x.ratio !== undefined ? ` (×${x.ratio} of ${x.reference})` : x.reference ? ` (${x.reference})` : ''}`).join('\n'));
  process.exit(0);
}
