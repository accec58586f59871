/** Mutations of corpus files for the fuzz tests (plain module: usable outside vitest to replay a case). */
type Mutator = (b: Buffer, r: () => number) => Buffer;
export const pick = <T>(r: () => number, a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
const at = (b: Buffer, r: () => number) => Math.floor(r() * Math.max(1, b.length));

export const COMMON: Record<string, Mutator> = {
  truncate: (b, r) => b.subarray(0, at(b, r)),
  byteFlips: (b, r) => {
    const c = Buffer.from(b);
    for (let i = 0; i < 1 + Math.floor(r() * 20); i++) c[at(c, r)] = Math.floor(r() * 256);
    return c;
  },
  nulBytes: (b, r) => {
    const c = Buffer.from(b);
    for (let i = 0; i < 5; i++) c[at(c, r)] = 0;
    return c;
  },
  invalidUtf8: (b, r) => {
    const i = at(b, r);
    return Buffer.concat([b.subarray(0, i), Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0xe2, 0x82]), b.subarray(i)]);
  },
  megabyteLine: (b, r) => {
    const i = at(b, r);
    return Buffer.concat([b.subarray(0, i), Buffer.from(`X-JUNK:${'a'.repeat(1024 * 1024)}\r\n`), b.subarray(i)]);
  },
  duplicateHalf: (b, r) => Buffer.concat([b, b.subarray(at(b, r))]),
};

export const ICS_ONLY: Record<string, Mutator> = {
  endlessRrule: (b) => Buffer.from(b.toString('latin1').replace(/END:VEVENT/, 'RRULE:FREQ=SECONDLY\r\nEND:VEVENT'), 'latin1'),
  repeatedBegin: () => Buffer.from(`BEGIN:VCALENDAR\r\n${'BEGIN:VEVENT\r\n'.repeat(20_000)}END:VCALENDAR\r\n`),
  hugeEvent: () => Buffer.from(`BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:big\r\nDTSTART:20250101T100000Z\r\nSUMMARY:big\r\n${Array.from({ length: 100_000 }, (_, i) => `X-P${i}:v`).join('\r\n')}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`),
  badDates: (b) => Buffer.from(b.toString('latin1').replace(/DTSTART([^:\r\n]*):\d{8}/, 'DTSTART$1:20251399'), 'latin1'),
};

export const CSV_ONLY: Record<string, Mutator> = {
  tenThousandColumns: (b) => Buffer.concat([Buffer.from(`${Array.from({ length: 10_000 }, (_, i) => `c${i}`).join(',')}\n`), b]),
  unbalancedQuote: (b, r) => {
    const i = at(b, r);
    return Buffer.concat([b.subarray(0, i), Buffer.from('"'), b.subarray(i)]);
  },
  mixedEncodings: (b) => Buffer.concat([b, Buffer.from('\nÜberraschung,2025-01-01,2025-01-01\n', 'latin1'), Buffer.from('Überraschung,2025-01-02,2025-01-02\n', 'utf8')]),
};

