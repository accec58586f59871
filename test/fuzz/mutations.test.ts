import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { normalizeIcs } from '../../src/sources/ics/index.ts';
import { IcsError } from '../../src/sources/ics/errors.ts';
import { CsvRefusedError, inspectCsv, readCsv, type CsvOptions } from '../../src/sources/csv/index.ts';
import { prng } from '../../src/util/random.ts';
import { corpus } from '../support/site.ts';
import { COMMON, CSV_ONLY, ICS_ONLY, pick } from './mutators.ts';

/**
 * Bad input must never crash or hang calsync: every corpus file plus generated mutations of it
 * (truncation, byte flips, NUL bytes, invalid UTF-8, 1 MB lines, huge events, repeated BEGIN
 * blocks, endless RRULEs…) is parsed within a time bound, and every VEVENT/row is accounted for.
 * CALSYNC_FUZZ_CASES sets how many mutations run (a few hundred in `npm test`, 20,000 in `npm run test:fuzz`).
 */
const CASES = Number(process.env.CALSYNC_FUZZ_CASES ?? 300);
const ICS = readdirSync(corpus('ics')).filter((f) => f.endsWith('.ics')).map((f) => [f, readFileSync(corpus('ics', f))] as const);
const CSV = readdirSync(corpus('csv')).filter((f) => f.endsWith('.csv')).map((f) => [f, readFileSync(corpus('csv', f))] as const);
const WINDOW = { from: new Date('1990-01-01T00:00:00Z'), to: new Date('2030-12-31T00:00:00Z') };

function timedMs(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

describe('ICS: corpus mutations never crash or hang, and every VEVENT is accounted for', () => {
  const mutators = Object.entries({ ...COMMON, ...ICS_ONLY });
  it(`${Math.ceil(CASES / 2)} mutations`, { timeout: 400_000 }, () => {
    const r = prng(20261122);
    let slowest = 0;
    for (let i = 0; i < Math.ceil(CASES / 2); i++) {
      const [file, bytes] = pick(r, ICS);
      const [name, mutate] = pick(r, mutators);
      const input = mutate(bytes, r);
      let ok = true;
      const ms = timedMs(() => {
        try {
          const { items, summary } = normalizeIcs(new Uint8Array(input), { sourceKey: 'fuzz', sourceName: `${file}~${name}`, window: WINDOW, maxOccurrencesPerSeries: 2000 });
          const a = summary.accounting;
          ok = a.drafted + a.failed + a.outsideWindow + a.superseded === summary.vevents && items.every((x) => x.ok || x.failure.reason.length > 0);
        } catch (err) {
          // A mutation that leaves no calendar (or too much of one) is refused as a whole, by a typed error.
          ok = err instanceof IcsError && err.message.length > 0;
        }
      });
      expect(ok, `${file} ~ ${name}`).toBe(true);
      expect(ms, `${file} ~ ${name} took ${ms} ms`).toBeLessThan(15_000);
      slowest = Math.max(slowest, ms);
    }
    expect(slowest).toBeLessThan(15_000);
  });

  it('a broken VEVENT does not take the valid ones beside it down', () => {
    for (const [file, bytes] of ICS) {
      const text = bytes.toString('latin1');
      if (!text.includes('END:VEVENT')) continue;
      const clean = normalizeIcs(new Uint8Array(bytes), { sourceKey: 'x', sourceName: file, window: WINDOW });
      const broken = Buffer.from(text.replace(/END:VEVENT/, 'END:VEVENT\r\nBEGIN:VEVENT\r\nUID:garbage\r\nDTSTART:not-a-date\r\nSUMMARY\r\nEND:VEVENT'), 'latin1');
      const dirty = normalizeIcs(new Uint8Array(broken), { sourceKey: 'x', sourceName: file, window: WINDOW });
      expect(dirty.summary.accounting.drafted, file).toBe(clean.summary.accounting.drafted);
      expect(dirty.items.filter((x) => !x.ok).length, file).toBe(clean.items.filter((x) => !x.ok).length + 1);
    }
  });
});

describe('CSV: corpus mutations never crash or hang, and every row is accounted for', () => {
  const mutators = Object.entries({ ...COMMON, ...CSV_ONLY });
  it(`${Math.floor(CASES / 2)} mutations`, { timeout: 400_000 }, async () => {
    const r = prng(4242);
    for (let i = 0; i < Math.floor(CASES / 2); i++) {
      const [file, bytes] = pick(r, CSV);
      const [name, mutate] = pick(r, mutators);
      const input = mutate(bytes, r);
      const open = () => Readable.from([input]);
      const opts: CsvOptions = { kind: 'events', sourceKey: 'fuzz', sourceName: `${file}~${name}` };
      const t = performance.now();
      try {
        const inspection = await inspectCsv(open, opts);
        let n = 0;
        for await (const item of readCsv(open, opts, inspection)) {
          n++;
          if (!item.result.ok) expect(item.result.failure.reason.length).toBeGreaterThan(0);
        }
        expect(n, `${file} ~ ${name}`).toBe(inspection.rows);
      } catch (err) {
        // A whole-file refusal is allowed, but only with a reason; anything else is a crash.
        expect(err, `${file} ~ ${name}: ${(err as Error).message}`).toBeInstanceOf(CsvRefusedError);
      }
      expect(performance.now() - t, `${file} ~ ${name}`).toBeLessThan(15_000);
    }
  });

  it('reads the real corpus files from disk the same way (streams)', async () => {
    for (const [file] of CSV) {
      const open = () => createReadStream(corpus('csv', file));
      const opts: CsvOptions = { kind: 'events', sourceKey: 'disk', sourceName: file };
      await inspectCsv(open, opts).catch((e) => expect(e).toBeInstanceOf(CsvRefusedError));
    }
  });
});
