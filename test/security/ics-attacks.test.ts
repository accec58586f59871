import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { csvOpener } from '../../src/runs/import-csv.ts';
import { inspectCsv } from '../../src/sources/csv/inspect.ts';
import { openFileCapped, FetchError } from '../../src/sources/fetch/index.ts';
import { DEFAULT_MAX_BYTES } from '../../src/sources/fetch/options.ts';
import { IcsLimitError } from '../../src/sources/ics/errors.ts';
import { DEFAULT_MAX_OCCURRENCES_PER_FILE, normalizeIcs, type IcsNormalizeOptions } from '../../src/sources/ics/normalize.ts';
import { MAX_WARNING_CHARS, MAX_WARNINGS } from '../../src/ical/warnings.ts';
import { bytesOpen, opts as csvOpts } from '../csv/helpers.ts';

/**
 * Issue 14 part 2: each attack replayed. Before the fix each of these took gigabytes of heap (or
 * minutes); now each ends within bounds, with the file refused by a typed error or its output capped.
 */
const WINDOW = { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2028-01-01T00:00:00Z') };
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const run = (s: string, o: Partial<IcsNormalizeOptions> = {}) => normalizeIcs(enc(s), { sourceKey: 'a', sourceName: 'attack.ics', window: WINDOW, ...o });
const calendar = (body: string): string => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${body}END:VCALENDAR\r\n`;

function heapGrowthMb(fn: () => void): number {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  try {
    fn();
  } finally {
    clearInterval(timer);
  }
  return (Math.max(peak, process.memoryUsage().heapUsed) - before) / 2 ** 20;
}

describe('issue 14 part 2: hostile ICS and CSV input', () => {
  it('regression: 2,000 FREQ=MINUTELY series (302 KB) exhausted the heap at 4.3 GB; now refused with ics-too-many-occurrences', () => {
    const series = Array.from({ length: 2000 }, (_, i) => `BEGIN:VEVENT\r\nUID:m${i}@attack\r\nSUMMARY:minute ${i}\r\nDTSTART:20270101T000000Z\r\nRRULE:FREQ=MINUTELY\r\nEND:VEVENT\r\n`).join('');
    const text = calendar(series);
    expect(text.length).toBeGreaterThan(200_000);
    let err: unknown;
    const t0 = performance.now();
    const grew = heapGrowthMb(() => {
      try {
        run(text);
      } catch (e) {
        err = e;
      }
    });
    expect(err).toBeInstanceOf(IcsLimitError);
    expect((err as IcsLimitError).code).toBe('ics-too-many-occurrences');
    expect((err as Error).message).toMatch(new RegExp(`more than ${DEFAULT_MAX_OCCURRENCES_PER_FILE} occurrences in one file`));
    expect(performance.now() - t0).toBeLessThan(30_000);
    expect(grew).toBeLessThan(600);
  });

  it('the per-file cap is an option: a smaller cap refuses sooner, a file under it imports', () => {
    const one = (n: number) => calendar(`BEGIN:VEVENT\r\nUID:d\r\nSUMMARY:daily\r\nDTSTART:20270101T090000Z\r\nRRULE:FREQ=DAILY;COUNT=${n}\r\nEND:VEVENT\r\n`);
    expect(run(one(300), { maxOccurrencesPerFile: 300 }).items).toHaveLength(300);
    expect(() => run(one(301), { maxOccurrencesPerFile: 300 })).toThrow(IcsLimitError);
    // VEVENTs count too: 301 single events are refused before any expansion.
    const many = calendar(Array.from({ length: 301 }, (_, i) => `BEGIN:VEVENT\r\nUID:s${i}\r\nSUMMARY:s\r\nDTSTART:20270101T090000Z\r\nEND:VEVENT\r\n`).join(''));
    expect(() => run(many, { maxOccurrencesPerFile: 300 })).toThrow(/more than 300 VEVENTs/);
  });

  it('regression: one small event using every BYxxx list took 904 MB; candidates now count against the work budget', () => {
    const all = (n: number, from = 0) => Array.from({ length: n }, (_, i) => i + from).join(',');
    const rule = `FREQ=YEARLY;BYMONTH=${all(12, 1)};BYMONTHDAY=${all(31, 1)};BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=${all(24)};BYMINUTE=${all(60)};BYSECOND=${all(60)};BYSETPOS=-1`;
    const text = calendar(`BEGIN:VEVENT\r\nUID:by\r\nSUMMARY:by\r\nDTSTART:20270101T000000Z\r\nRRULE:${rule}\r\nEND:VEVENT\r\n`);
    let r: ReturnType<typeof run> | undefined;
    const grew = heapGrowthMb(() => (r = run(text)));
    expect(grew).toBeLessThan(200);
    expect(r!.summary.warnings.join('\n')).toMatch(/work limit/);
  });

  it('regression: 5 M unterminated BEGIN lines took 3.3 GB of warnings; warnings are capped at 200 plus a count', () => {
    // VTODOs: each one closes the previous (a warning each), and they are not VEVENTs (not capped as such).
    const text = `BEGIN:VCALENDAR\r\n${'BEGIN:VTODO\r\n'.repeat(300_000)}`;
    const r = run(text);
    const w = r.summary.warnings;
    expect(w.length).toBeLessThanOrEqual(MAX_WARNINGS + 1);
    expect(w[w.length - 1]).toMatch(/^and \d+ more warning\(s\) not shown$/);
    expect(Number(/and (\d+) more/.exec(w[w.length - 1])![1])).toBeGreaterThan(299_000);
  });

  it('a long warning is cut, saying how much was cut', () => {
    const junk = `X${'y'.repeat(100_000)}`;
    const r = run(calendar(`BEGIN:VEVENT\r\nUID:w\r\nSUMMARY:w\r\nDTSTART:20270101T090000Z\r\nRRULE:FREQ=DAILY;COUNT=2;${junk}=1\r\nEND:VEVENT\r\n`));
    expect(r.summary.warnings.length).toBeGreaterThan(0);
    for (const w of r.summary.warnings) expect(w.length).toBeLessThan(MAX_WARNING_CHARS + 50);
  });

  it('regression: a 1 M-column CSV header printed an 8.8 MB warning line; column lists are capped', async () => {
    const header = ['Title', 'Start Date', ...Array.from({ length: 200_000 }, (_, i) => `extra column ${i}`)].join(',');
    const inspection = await inspectCsv(bytesOpen(`${header}\nParty,2027-01-05\n`), csvOpts());
    expect(inspection.unmapped.length).toBeLessThanOrEqual(51);
    expect(inspection.unmapped[inspection.unmapped.length - 1]).toBe(`… and ${200_000 - 50} more`);
    expect(inspection.unmapped.join(', ').length).toBeLessThan(5_000);
    // A refusal that lists the columns is bounded too.
    const refused = await inspectCsv(bytesOpen(`${header.replace('Start Date', 'Whatever')}\nParty,x\n`), csvOpts()).catch((e: Error) => e);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message.length).toBeLessThan(6_000);
  });

  it('regression: a local CSV file was read with no size cap; it now has the download cap', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-cap-'));
    const small = path.join(dir, 'small.csv');
    writeFileSync(small, 'x'.repeat(2048));
    const read = (s: NodeJS.ReadableStream) =>
      new Promise<number>((resolve, reject) => {
        let n = 0;
        s.on('data', (c: Buffer) => (n += c.length));
        s.on('end', () => resolve(n));
        s.on('error', reject);
      });
    expect(await read(openFileCapped(small, 4096))).toBe(2048);
    const err = await read(openFileCapped(small, 1024)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).code).toBe('too-large');
    // The CSV import's opener uses it with the same default cap as downloads (a sparse file: no disk).
    const huge = path.join(dir, 'huge.csv');
    writeFileSync(huge, '');
    truncateSync(huge, DEFAULT_MAX_BYTES + 1);
    const open = await csvOpener({ location: huge, allowFiles: true });
    const hugeErr = await read(open()).catch((e: unknown) => e);
    expect((hugeErr as FetchError).code).toBe('too-large');
  });
});
