import { Redis } from 'ioredis';
import { CalendarClient } from '../src/api/index.ts';
import { resolveSite } from '../src/config/sites.ts';
import { runSiteSync } from '../src/runs/sync-site.ts';
import { mapConcurrent } from '../src/util/pool.ts';
import { benchRedis, PASSWORD, sandboxProcess, USER } from './env.ts';
import { round, timed, type Scenario } from './lib.ts';

const ENV = { CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD };

/** First sync and no-change resync of `events` events between two sandbox processes. */
async function syncPair(events: number, latencyMs: number): Promise<{ first: number; resyncMs: number; resyncWrites: number }> {
  const args = latencyMs ? ['--latency-ms', String(latencyMs)] : [];
  const [src, dst] = await Promise.all([sandboxProcess(args), sandboxProcess(args)]);
  const rs = await benchRedis();
  const redis = new Redis(rs.url);
  try {
    const from = { ...resolveSite(src.url, undefined, { env: ENV }), key: 'src' };
    const to = resolveSite(dst.url, undefined, { env: ENV });
    const client = new CalendarClient({ ...from.connection, connections: 32 });
    const venue = await client.venues.create({ venue: 'Bench Hall', city: 'Springfield' } as never);
    const cat = await client.categories.create({ name: 'Bench' });
    await mapConcurrent(Array.from({ length: events }, (_, i) => i), 32, (i) => {
      const d = new Date(Date.UTC(2027, 0, 1 + (i % 360))).toISOString().slice(0, 10);
      return client.events.create({ title: `Bench ${i}`, start_date: `${d} 10:00:00`, end_date: `${d} 11:00:00`, timezone: 'Europe/Berlin', slug: `bench-${i}`, venue: venue.id, categories: [cat.id] } as never);
    });
    await client.close();
    const params = { from, to: { ...to, concurrency: 8 }, lang: 'en' as const, window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T23:59:59Z') }, retire: 'keep' as const, onEdit: 'overwrite' as const, dryRun: false };
    const first = await timed(() => runSiteSync(params, { redis }));
    if (first.value.counts.events.created !== events) throw new Error(`first sync created ${first.value.counts.events.created}/${events}`);
    await dst.resetStats();
    const again = await timed(() => runSiteSync(params, { redis }));
    return { first: events / (first.ms / 1000), resyncMs: again.ms, resyncWrites: (await dst.stats()).writes };
  } finally {
    await redis.quit();
    await rs.stop();
    await Promise.all([src.stop(), dst.stop()]);
  }
}

export async function runSyncBench(opts: { events?: number; slowEvents?: number } = {}): Promise<Scenario[]> {
  const n = opts.events ?? 10_000;
  const slow = opts.slowEvents ?? 1000;
  const fast = await syncPair(n, 0);
  const lag = await syncPair(slow, 50);
  return [
    { name: `sync first run, ${n} events, 0 ms sandboxes`, figure: round(fast.first, 0), unit: 'events/s' },
    { name: `sync no-change resync, ${n} events, 0 ms`, figure: round(fast.resyncMs / 1000, 2), unit: 's', reference: `first run ${round(n / fast.first, 1)} s`, ratio: round(fast.resyncMs / 1000 / (n / fast.first), 3) },
    { name: `sync no-change resync, ${n} events: writes`, figure: fast.resyncWrites, unit: 'writes' },
    { name: `sync first run, ${slow} events, 50 ms sandboxes`, figure: round(lag.first, 0), unit: 'events/s', reference: '0 ms sandboxes', ratio: round(lag.first / fast.first, 2) },
    { name: `sync no-change resync, ${slow} events, 50 ms`, figure: round(lag.resyncMs / 1000, 2), unit: 's', reference: `first run ${round(slow / lag.first, 1)} s`, ratio: round(lag.resyncMs / 1000 / (slow / lag.first), 3) },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await runSyncBench();
  console.log(s.map((x) => `${x.name}: ${x.figure} ${x.unit}${x.ratio !== undefined ? ` (×${x.ratio} of ${x.reference})` : ''}`).join('\n'));
}
