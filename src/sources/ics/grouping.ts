import { formatDay, formatLocalIso, formatUtcIso } from '../../model/timezones.ts';
import type { FileAccounting } from './accounting.ts';
import type { RawEvent } from './event.ts';
import { frameOf, selectorOf, type Frame, type Selector, type TimeContext } from './expand.ts';

/**
 * VEVENTs grouped by UID, and the choice among copies: which masters and which overrides (one per
 * RECURRENCE-ID) a group keeps, by SEQUENCE. Those not kept are marked superseded.
 */

export interface UidGroup {
  uid: string;
  masters: RawEvent[];
  overrides: RawEvent[];
}

export interface Grouping {
  /** In order of first appearance in the file. */
  groups: UidGroup[];
  /** Distinct UIDs in file order. */
  uids: string[];
  /** VEVENTs without UID (identity is derived from content for these). */
  withoutUid: number;
}

/** Content identity for a VEVENT without UID: summary, start as written, location. */
function syntheticUid(e: RawEvent): string {
  const t = e.dtstart;
  const start = !t ? '' : t.kind === 'date' ? formatDay(t.day) : t.kind === 'utc' ? formatUtcIso(t.sec) : `${formatLocalIso(t.sec)}${t.tzid !== undefined ? `@${t.tzid}` : ''}`;
  return `nouid|${(e.summary ?? '').trim()}|${start}|${(e.location ?? '').trim()}`;
}

function signature(e: RawEvent): string {
  return JSON.stringify([e.dtstart, e.dtend, e.duration, e.rrules, e.exrules, e.rdates, e.exdates, e.summary, e.description, e.location, e.status]);
}

/** The empty list of every group without masters or without overrides (never pushed to). */
const NO_EVENTS: RawEvent[] = Object.freeze([]) as unknown as RawEvent[];

export function groupByUid(raws: RawEvent[]): Grouping {
  const groups = new Map<string, UidGroup>();
  const uids: string[] = [];
  let withoutUid = 0;
  for (const e of raws) {
    if (!e.uid) withoutUid++;
    const uid = e.uid ?? syntheticUid(e);
    let g = groups.get(uid);
    if (!g) {
      if (e.uid) uids.push(e.uid);
      groups.set(uid, (g = { uid, masters: NO_EVENTS, overrides: NO_EVENTS }));
    }
    // Lists start exact: an empty array pushed to keeps room for 17 events, and most groups hold one
    // (60k groups of the bench's 20 MB feed held 9 MB of that room through normalization).
    const which = e.recurrenceId ? 'overrides' : 'masters';
    if (g[which] === NO_EVENTS) g[which] = [e];
    else g[which].push(e);
  }
  return { groups: [...groups.values()], uids, withoutUid };
}

/**
 * Masters kept: the highest SEQUENCE; identical copies are superseded; distinct events sharing a UID
 * (an Evolution test feed does this) are kept apart (the caller gives them `#2`, `#3` identity suffixes).
 */
export function distinctMasters(g: UidGroup, acct: FileAccounting): RawEvent[] {
  // One master (nearly every group) is kept as it is: nothing to compare it with.
  if (g.masters.length <= 1) return g.masters;
  const masters: RawEvent[] = [];
  // A loop, not Math.max(...): a feed can repeat one UID in hundreds of thousands of VEVENTs, more
  // arguments than a call can take (test/regressions/ics-long-lists-stack.test.ts).
  let top = -Infinity;
  for (const m of g.masters) if (m.sequence > top) top = m.sequence;
  const seen = new Set<string>();
  for (const m of g.masters) {
    const sig = g.masters.length > 1 ? signature(m) : '';
    if (m.sequence < top || seen.has(sig)) {
      acct.mark(m, 'superseded');
      continue;
    }
    seen.add(sig);
    masters.push(m);
  }
  if (masters.length > 1) acct.warn(`UID ${g.uid}: ${masters.length} different VEVENTs without RECURRENCE-ID; later ones get identity suffixes #2.. (file order)`);
  return masters;
}

export interface Override {
  e: RawEvent;
  /** The instance it replaces, keyed in the master's frame. */
  key: string;
  sel: Selector;
}

/** The overrides kept of a group that has none (most groups; never added to). */
const NO_OVERRIDES: Override[] = Object.freeze([]) as unknown as Override[];

/** Overrides kept: one per RECURRENCE-ID (highest SEQUENCE, later wins ties), keyed in the master's frame. */
export function latestOverrides(g: UidGroup, masterFrame: Frame | undefined, ctx: TimeContext, acct: FileAccounting): Override[] {
  if (!g.overrides.length) return NO_OVERRIDES;
  const byKey = new Map<string, Override>();
  for (const e of g.overrides) {
    const keyFrame = masterFrame ?? frameOf(e.dtstart ?? e.recurrenceId!, ctx);
    const sel = selectorOf(e.recurrenceId!, keyFrame, ctx);
    const key = sel.key ?? formatDay(sel.day!);
    const prev = byKey.get(key);
    if (prev && prev.e.sequence > e.sequence) {
      acct.mark(e, 'superseded');
      continue;
    }
    if (prev) acct.mark(prev.e, 'superseded');
    byKey.set(key, { e, key, sel });
  }
  return [...byKey.values()];
}
