/**
 * Fills Node's compile cache for the parser thread, as any earlier run on the machine has
 * (bench/lib.ts likeTheCli runs this in a process of its own, so that no warm parser thread
 * is left behind for the import it measures).
 */
import { enableCompileCache, getCompileCacheDir } from 'node:module';

enableCompileCache();
const { normalizeIcsIsolated } = await import('../src/sources/ics/isolate.ts');
const tiny = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:bench\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTART:20250601T100000Z\r\nSUMMARY:x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n';
const window = { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2026-01-01T00:00:00Z') };
await normalizeIcsIsolated(new TextEncoder().encode(tiny), { sourceKey: 'bench', sourceName: 'bench', window, defaultTimezone: 'UTC' });
console.log(JSON.stringify({ dir: getCompileCacheDir() }));
process.exit(0);
