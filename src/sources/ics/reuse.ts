import { createHash, hash } from 'node:crypto';
import type { EventDraft, Normalized } from '../../model/draft.ts';
import type { VTimezoneDef } from '../../ical/vtimezone.ts';
import type { Outcome } from './accounting.ts';
import type { RawEvent } from './event.ts';
import type { UidGroup } from './grouping.ts';
import { normalizeGroup, type FileRun } from './series.ts';

/**
 * Reusing a UID group's outcome from the last clean run instead of normalizing it again (the
 * thread's side; src/runs/group-reuse.ts keeps the records and decides which
 * may be reused). A group's drafts are a function of its VEVENTs' text (without the DTSTAMP many
 * publishers rewrite on every export), of the file's time context and options, and of the window;
 * the hash covers the first three, the record's window bounds the last.
 */

/**
 * Bumped whenever normalization changes what a group's drafts are (content, times, identities):
 * every recorded group is then normalized again once.
 */
export const GROUP_CODE_VERSION = 2;

const OUTCOME_LETTERS: Record<Outcome, string> = { drafted: 'd', failed: 'f', outsideWindow: 'o', superseded: 's' };
const LETTER_OUTCOMES: Record<string, Outcome> = { d: 'drafted', f: 'failed', o: 'outsideWindow', s: 'superseded' };
/** A bound the window never reaches (JSON has no Infinity). */
const NEVER = Number.MAX_SAFE_INTEGER;

export interface ReusedGroupMeta {
  /** Outcome of each of the group's VEVENTs (groupEvents order), one letter each (OUTCOME_LETTERS). */
  outcomes: string;
  /** Series the group counted (summary.series). */
  series: number;
  /** Occurrences expansion produced (the file's occurrence limit counts them). */
  produced: number;
  /** Recurrence work its expansion spent (the file's work budget, which its series share, counts it). */
  work: number;
  /** Drafts the group made. */
  drafts: number;
}

/**
 * How far the window may move before the group's drafts change, in the seconds FileRun.window uses:
 * the group is the same for any later window with `from < fromHi` and `to < toHi` (a window only moves
 * forward in time; one that moves back is checked against the recorded window by the caller).
 */
export interface WindowBounds {
  fromHi: number;
  toHi: number;
}

/** A window in the seconds the parser works in (normalize.ts: FileRun.window). */
export function windowSeconds(w: { from: Date; to: Date }): { from: number; to: number } {
  return { from: Math.floor(w.from.getTime() / 1000), to: Math.ceil(w.to.getTime() / 1000) };
}

/**
 * Whether a group recorded for window `made` (with these bounds) makes the same drafts in window `w`:
 * `w` starts and ends no earlier than `made` (no occurrence before it comes back) and stays under the bounds.
 */
export function boundsHold(made: { from: number; to: number } & WindowBounds, w: { from: number; to: number }): boolean {
  return made.from <= w.from && made.to <= w.to && w.from < made.fromHi && w.to < made.toHi;
}

/** A group normalized now whose outcome may be recorded (no warning, no failure, nothing cancelled). */
export interface RecordableGroup extends ReusedGroupMeta, WindowBounds {
  hash: string;
  /** Its drafts are items [start, end) of the file's items. */
  start: number;
  end: number;
  /** Line of each of its VEVENTs (groupEvents order). */
  lines: number[];
  /** The UID the file gives it (the origin UID of its drafts, but for a second event sharing it). */
  uid: string;
}

/** A group the thread did not normalize: the recorded outcome of `hash` stands for it. */
export interface ReusedGroup {
  hash: string;
  lines: number[];
  uid: string;
}

export interface GroupOutcomes {
  recordable: RecordableGroup[];
  reused: ReusedGroup[];
}

/** The group's VEVENTs in one fixed order (the order their lines and outcomes are kept in). */
export function groupEvents(g: UidGroup): RawEvent[] {
  return g.overrides.length ? [...g.masters, ...g.overrides] : g.masters;
}

/**
 * What every group's drafts depend on besides its own VEVENTs: options, calendar zones (X-WR-TIMEZONE,
 * the file's VTIMEZONE definitions, the zone floating times use, the year zone rules are compared in)
 * and the time-zone database of this Node.
 */
export function fileFingerprint(parts: {
  sourceKey: string;
  sourceName: string;
  status?: string;
  categoriesAs?: string;
  cap: number;
  defaultTimezone?: string;
  xWrTimezone?: string;
  vtimezones: VTimezoneDef[];
  calendarZone: string;
  refYear: number | undefined;
}): string {
  return createHash('sha256').update(JSON.stringify([GROUP_CODE_VERSION, process.versions.tz ?? '', parts])).digest('base64url');
}

/**
 * One VEVENT's hash: its text as written from BEGIN to END, without its DTSTAMP (many publishers
 * stamp every VEVENT with the time of the export). Its position is not in it (an event added above
 * shifts every line), and the text holds everything the VEVENT is read from.
 */
export function spanHash(text: string, from: number, to: number): string {
  const span = text.slice(from, to);
  const at = span.indexOf('\nDTSTAMP');
  if (at < 0) return hash('sha256', span, 'base64url');
  // To the end of its logical line: the next line break not followed by a fold.
  let end = at + 1;
  for (;;) {
    const nl = span.indexOf('\n', end);
    if (nl < 0) return hash('sha256', span.slice(0, at), 'base64url');
    end = nl + 1;
    if (span[end] !== ' ' && span[end] !== '\t') break;
  }
  return hash('sha256', span.slice(0, at) + span.slice(end - 1), 'base64url');
}

/** The group's hash: the file's fingerprint and its VEVENTs' (spanHash), in groupEvents order. */
export function groupHash(fileFp: string, spans: readonly string[], events: readonly RawEvent[]): string {
  let text = fileFp;
  for (const e of events) text += spans[e.index];
  return hash('sha256', text, 'base64url').slice(0, 32);
}

/** Whether the items a group made can stand for it next time: drafts only, none cancelled, none with an image to check again. */
export function recordableItems(items: readonly Normalized<EventDraft>[], start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const it = items[i]!;
    if (!it.ok || it.draft.cancelled || it.draft.image !== undefined) return false;
  }
  return true;
}

/**
 * The file's UID groups, one at a time: a group whose hash is in `reuse` is not normalized (its
 * recorded outcome is accounted for instead); any other is normalized, and noted as recordable when
 * nothing about it would be lost by not normalizing it next time (a warning, a failure, a cancelled
 * occurrence, an image, a zone that could not be resolved).
 */
export class GroupPass {
  readonly outcomes: GroupOutcomes = { recordable: [], reused: [] };
  private readonly run: FileRun;
  private readonly fileFp: string;
  private readonly spans: readonly string[];
  private readonly reuse: ReadonlyMap<string, ReusedGroupMeta> | undefined;
  private readonly warnedZones: ReadonlySet<string>;

  constructor(run: FileRun, fileFp: string, spans: readonly string[], reuse: ReadonlyMap<string, ReusedGroupMeta> | undefined, warnedZones: ReadonlySet<string>) {
    this.run = run;
    this.fileFp = fileFp;
    this.spans = spans;
    this.reuse = reuse;
    this.warnedZones = warnedZones;
  }

  take(g: UidGroup): void {
    const events = groupEvents(g);
    const hash = groupHash(this.fileFp, this.spans, events);
    const meta = this.reuse?.get(hash);
    const { acct, budget } = this.run;
    // With less of the file's work budget left than it spent, normalizing it would run out: it normalizes.
    if (meta && meta.outcomes.length === events.length && meta.work <= budget.remaining) return this.stand(hash, g, meta);
    const start = acct.items.length;
    const before = { warnings: acct.warnings.count, series: acct.series, produced: acct.producedSoFar, work: budget.remaining };
    const bounds: WindowBounds = { fromHi: NEVER, toHi: NEVER };
    this.run.bounds = bounds;
    try {
      normalizeGroup(g, this.run);
    } finally {
      this.run.bounds = undefined;
    }
    const end = acct.items.length;
    if (acct.warnings.count !== before.warnings || !recordableItems(acct.items, start, end) || events.some((e) => e.tzids.some((z) => this.warnedZones.has(z)))) return;
    this.outcomes.recordable.push({
      hash, start, end, lines: events.map((e) => e.line), uid: g.uid, outcomes: events.map((e) => OUTCOME_LETTERS[acct.outcomeOf(e)]).join(''),
      series: acct.series - before.series, produced: acct.producedSoFar - before.produced, work: before.work - budget.remaining,
      drafts: end - start, ...bounds,
    });
  }

  /** A reused group: its VEVENTs' outcomes, series, occurrences and work counted as recorded, no draft made. */
  private stand(hash: string, g: UidGroup, meta: ReusedGroupMeta): void {
    const events = groupEvents(g);
    const { acct } = this.run;
    acct.produce(meta.produced);
    this.run.budget.remaining -= meta.work;
    acct.series += meta.series;
    acct.reusedDrafts += meta.drafts;
    events.forEach((e, i) => acct.mark(e, LETTER_OUTCOMES[meta.outcomes[i]!] ?? 'drafted'));
    this.outcomes.reused.push({ hash, lines: events.map((e) => e.line), uid: g.uid });
  }
}
