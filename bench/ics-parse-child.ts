// Child process of the ICS bench: generate a feed of the requested size, then time parse+normalize
// and report this process' peak RSS (the generator's string is counted in the baseline).
import { generateIcsFeed } from '../test/support/generate-ics.ts';
import { normalizeIcs } from '../src/sources/ics/index.ts';
import { peakRssMiB, round } from './lib.ts';

const targetMb = Number(process.argv[2] ?? 20);
let events = 1000;
let ics = generateIcsFeed({ events, seed: 11 });
events = Math.ceil((events * targetMb * 1024 * 1024) / Buffer.byteLength(ics));
ics = generateIcsFeed({ events, seed: 11, recurringShare: 0.05 });
const bytes = new TextEncoder().encode(ics);
ics = '';
(globalThis as { gc?: () => void }).gc?.();
const baselineRss = round(process.memoryUsage().rss / 2 ** 20, 1);
const cpu0 = process.cpuUsage();
const t = performance.now();
const r = normalizeIcs(bytes, { sourceKey: 'big', sourceName: 'big', window: { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2026-01-31T00:00:00Z') } });
const ms = performance.now() - t;
const cpu = process.cpuUsage(cpu0);
// CPU time next to wall time: on a shared, loaded machine the gap is the time this process waited for a core.
const cpuMs = round((cpu.user + cpu.system) / 1000, 0);
console.log(JSON.stringify({ mb: round(bytes.byteLength / 2 ** 20, 1), ms: round(ms, 0), cpuMs, rss: peakRssMiB(), baselineRss, occurrences: r.summary.occurrences }));
