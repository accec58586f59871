import { CalsyncError } from '../errors/calsync-error.ts';

/** A date spec or window that cannot be resolved; the message shows the accepted forms. */
export class DateSpecError extends CalsyncError {
  override name = 'DateSpecError';
  readonly code = 'date-spec-invalid';
}

/** Resolves a date spec (`2026-01-01`, `-30d`, `+365d`, `+12w`, `now`, `today`) against `now`. */
export function resolveDateSpec(spec: string, now = new Date(), endOfDay = false): Date {
  const s = spec.trim();
  if (s === 'now') return now;
  const rel = /^([+-])(\d+)([dw])$/.exec(s);
  if (rel) {
    const days = Number(rel[2]) * (rel[3] === 'w' ? 7 : 1) * (rel[1] === '-' ? -1 : 1);
    return new Date(now.getTime() + days * 86_400_000);
  }
  if (s === 'today') {
    const d = new Date(now);
    d.setUTCHours(endOfDay ? 23 : 0, endOfDay ? 59 : 0, endOfDay ? 59 : 0, 0);
    return d;
  }
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(s);
  if (!m) throw new DateSpecError(`"${spec}" is not a date: expected YYYY-MM-DD or a relative offset like -30d or +365d`);
  const [, y, mo, d, h, mi, se] = m;
  const hasTime = h !== undefined;
  return new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), hasTime ? Number(h) : endOfDay ? 23 : 0, hasTime ? Number(mi) : endOfDay ? 59 : 0, se ? Number(se) : endOfDay && !hasTime ? 59 : 0));
}

/** `--window <from>..<to>`. */
export function parseWindow(spec: string, now = new Date()): { from: Date; to: Date } {
  const [a, b] = spec.split('..');
  if (!a || !b) throw new DateSpecError(`--window "${spec}": expected <from>..<to>, e.g. 2024-01-01..2024-12-31 or -30d..+365d`);
  const from = resolveDateSpec(a, now);
  const to = resolveDateSpec(b, now, true);
  if (to < from) throw new DateSpecError(`--window "${spec}": the end is before the start`);
  return { from, to };
}
