import { z } from 'zod';
import { parseZone } from '../sources/csv/zones.ts';
import { allZoneNames, canonicalZone } from './timezones.ts';

/**
 * A time zone given as an option or config key: an IANA name (any case, legacy links), or an
 * offset such as `UTC+02:00`, turned into the name every reader of it understands. Unknown
 * names are refused, with the nearest known one when there is a close one (`Europe/Berln`).
 */
export function zoneOption(value: string): string | undefined {
  const v = value.trim();
  if (!v) return undefined;
  const canonical = canonicalZone(v);
  if (canonical) return canonical;
  const parsed = parseZone(v);
  return parsed.ok ? parsed.value : undefined;
}

export function unknownZoneMessage(value: string): string {
  const near = nearestZone(value);
  return `unknown time zone "${value}"${near ? ` (did you mean ${near}?)` : ''}: give an IANA name such as Europe/Berlin, or an offset such as UTC+02:00`;
}

export const ZoneName = z.string().transform((v, ctx) => {
  const zone = zoneOption(v);
  if (zone) return zone;
  ctx.addIssue({ code: 'custom', message: unknownZoneMessage(v) });
  return z.NEVER;
});

/** The known zone at the smallest edit distance, when it is at most 2 edits away. */
function nearestZone(value: string): string | undefined {
  const v = value.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const name of allZoneNames()) {
    const d = distance(v, name.toLowerCase(), 3);
    if (d <= 2 && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/** Levenshtein distance, giving up (returns `cap`) once every path is at least `cap`. */
function distance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (Math.min(...row) >= cap) return cap;
    prev = row;
  }
  return Math.min(prev[b.length]!, cap);
}
