import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ical, { type VEvent } from 'node-ical';
import { expect } from 'vitest';

/** Golden files: compared byte for byte; `UPDATE_GOLDEN=1` rewrites them. */
export function expectGolden(name: string, actual: string): void {
  const path = join(import.meta.dirname, 'golden', name);
  if (process.env.UPDATE_GOLDEN === '1') {
    writeFileSync(path, actual);
    return;
  }
  let expected: string;
  try {
    expected = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`golden file ${path} is missing: run with UPDATE_GOLDEN=1 to create it`);
  }
  expect(actual).toBe(expected);
}

export type ParsedEvent = VEvent;

/** Parses with node-ical (an independent parser) and returns the VEVENTs by UID. */
export function parseEvents(text: string): Map<string, ParsedEvent> {
  const data = ical.sync.parseICS(text);
  const out = new Map<string, ParsedEvent>();
  for (const v of Object.values(data)) if (v && (v as { type?: string }).type === 'VEVENT') out.set((v as ParsedEvent).uid, v as ParsedEvent);
  return out;
}

/** `YYYY-MM-DD` of a node-ical all-day value (host-local midnight, LIBRARIES §2.3). */
export function localDay(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/**
 * Structural checks any consumer relies on: CRLF line ends (the last line too), lines of at most 75
 * octets, every TZID parameter backed by exactly one VTIMEZONE and no unused one, no floating
 * DTSTART/DTEND on timed events, unique UIDs.
 */
export function checkStructure(text: string): void {
  expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true);
  expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  const lines = text.split('\r\n').slice(0, -1);
  for (const line of lines) expect(Buffer.byteLength(line, 'utf8'), line).toBeLessThanOrEqual(75);
  const unfolded = text.replace(/\r\n[ \t]/g, '');
  const used = new Set([...unfolded.matchAll(/;TZID=([^:;]+)[:;]/g)].map((m) => m[1]));
  const defined = [...unfolded.matchAll(/^TZID:(.+)$/gm)].map((m) => m[1].trim());
  expect(new Set(defined).size).toBe(defined.length);
  expect(new Set(defined)).toEqual(used);
  for (const m of unfolded.matchAll(/^(DTSTART|DTEND)(;[^:]*)?:(\d{8}T\d{6})(Z?)$/gm)) {
    if (m[0].startsWith('DTSTART:') && unfolded.lastIndexOf('BEGIN:VEVENT', m.index) < unfolded.lastIndexOf('BEGIN:VTIMEZONE', m.index)) continue; // VTIMEZONE observances
    expect(Boolean(m[4]) || (m[2] ?? '').includes('TZID='), `floating time: ${m[0]}`).toBe(true);
  }
  const uids = [...unfolded.matchAll(/^UID:(.+)$/gm)].map((m) => m[1]);
  expect(new Set(uids).size).toBe(uids.length);
}
