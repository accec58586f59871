/**
 * Child of test/ics/parse-thread-compile-cache.test.ts: turns on Node's compile cache in the
 * directory it is given only after this process loaded its own modules (so whatever the cache
 * holds afterwards was compiled by the parser thread), then parses a tiny feed in that thread.
 */
import { enableCompileCache } from 'node:module';
import { normalizeIcsIsolated } from '../../../src/sources/ics/isolate.ts';

enableCompileCache(process.argv[2]!);
const feed = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:test\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTART:20250601T100000Z\r\nSUMMARY:x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n';
const r = await normalizeIcsIsolated(new TextEncoder().encode(feed), { sourceKey: 't', sourceName: 't', window: { from: new Date('2025-01-01'), to: new Date('2026-01-01') }, defaultTimezone: 'UTC' });
console.log(JSON.stringify({ occurrences: r.summary.occurrences }));
