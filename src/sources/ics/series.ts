import { utcToWall } from '../../model/timezones.ts';
import type { Budget } from '../../ical/rrule.ts';
import type { FileAccounting } from './accounting.ts';
import { occurrenceDraft, type ContentCache } from './content.ts';
import type { RawEvent } from './event.ts';
import {
  defaultSpan,
  expandSeries,
  frameLocal,
  frameOf,
  inWindow,
  instantOf,
  place,
  selectorOf,
  spanOf,
  type Frame,
  type Occ,
  type Selector,
  type Span,
  type TimeContext,
} from './expand.ts';
import { distinctMasters, latestOverrides, type Override, type UidGroup } from './grouping.ts';
import type { WindowBounds } from './reuse.ts';

/**
 * One UID group -> its drafts, in start order: the masters expanded over the window, each override
 * placed (or expanded, for an orphan carrying its own RRULE), RANGE=THISANDFUTURE overrides shifting
 * the instances after them.
 *
 * Identity: `UID` for a single event; `UID|<original start>` for each instance of a series, where an
 * override uses its RECURRENCE-ID, so moving an instance keeps its identity.
 */

const DAY = 86_400;
/** Work units one series may use (a daily rule over a century is ~40k). */
const PER_SERIES_WORK = 1_000_000;

/** What the whole file's run shares with each group. */
export interface FileRun {
  source: string;
  window: { from: number; to: number };
  /** Occurrences per series inside the window. */
  cap: number;
  /** Recurrence work left for the whole file. */
  budget: Budget;
  ctx: TimeContext;
  acct: FileAccounting;
  contents: ContentCache;
  status: string | undefined;
  asTags: boolean;
  /** Set while a group is normalized for the record (reuse.ts): how far the window may move before its drafts change. */
  bounds?: WindowBounds;
}

/**
 * A series expands only a little past the window's end (expand.ts: at least two days of reach on the
 * wall clock of its own zone, so at least two days less a change of that zone's offset): an instance
 * starting later than this after the window's end may exist unseen, so a later window ending past it
 * must expand the series again. 36 hours leaves 12 for offset changes and lets a daily run reuse it.
 */
const SEEN_PAST_WINDOW = 36 * 3600;

/** The window test of an occurrence, noting in `run.bounds` how far the window may move before the answer changes. */
function kept(o: Occ, run: FileRun): boolean {
  const { from, to } = run.window;
  const inside = inWindow(o, from, to);
  const b = run.bounds;
  if (b === undefined) return inside;
  // Inside: it stays while the window's start is before its end (a zero-length one: at or before its start).
  if (inside) b.fromHi = Math.min(b.fromHi, o.endUtc === o.utc ? o.utc + 1 : o.endUtc);
  // After the window: it comes in once the window's end passes its start. Before the window: gone for good.
  else if (o.utc >= to) b.toHi = Math.min(b.toHi, o.utc);
  return inside;
}

interface FramedMaster {
  e: RawEvent;
  f: Frame;
  span: Span;
  /** The group's UID, `#2`, `#3`… suffixed for later distinct masters. */
  uid: string;
}

/**
 * A draft to make once the group's occurrences are sorted by start: what emit() needs, as data (a
 * closure per occurrence, with its context, was most of what a single event's group allocated).
 */
interface Pending {
  sort: number;
  e: RawEvent;
  /** The master `e` inherits missing properties from (an override's). */
  base: RawEvent | undefined;
  o: Occ;
  f: Frame;
  identity: string;
  occurrence: string | undefined;
  /** A master counted as drafted too when this draft is kept (an instance RANGE=THISANDFUTURE shifted). */
  alsoDrafted?: RawEvent;
}

const bySort = (a: Pending, b: Pending): number => a.sort - b.sort;
/** The drafts of a group without overrides, from them (most groups; never added to). */
const NO_PENDING: Pending[] = Object.freeze([]) as unknown as Pending[];

export function normalizeGroup(g: UidGroup, run: FileRun): void {
  const masters = framedMasters(distinctMasters(g, run.acct), g.uid, run);
  const master = masters[0];
  if (master && (master.e.rrules.length || master.e.rdates.length)) run.acct.series++;
  else if (!master && g.overrides.length && !g.masters.length) run.acct.series++;
  const overrides = latestOverrides(g, master?.f, run.ctx, run.acct);

  const fromOverrides = overrideDrafts(overrides, master, g.uid, run);
  const fromMasters = masterDrafts(masters, overrides, run);
  const out = fromOverrides.length ? [...fromOverrides, ...fromMasters] : fromMasters;
  if (out.length > 1) out.sort(bySort);
  for (const p of out) {
    if (emit(p.e, p.base, p.o, p.f, p.identity, p.occurrence, run) && p.alsoDrafted) run.acct.mark(p.alsoDrafted, 'drafted');
  }
  // A master whose instances in the window were all replaced by overrides still produced its series.
  if (master && run.acct.outcomeOf(master.e) === 'outsideWindow' && overrides.some((o) => run.acct.outcomeOf(o.e) === 'drafted')) {
    run.acct.mark(master.e, 'drafted');
  }
  run.contents.forget(g.masters);
  run.contents.forget(g.overrides);
}

/** Masters with their frame and span; one without a usable DTSTART or end fails. */
function framedMasters(masters: RawEvent[], groupUid: string, run: FileRun): FramedMaster[] {
  const framed: FramedMaster[] = [];
  // A loop, not forEach: no closure per group (60k groups on the bench's 20 MB feed).
  for (let i = 0; i < masters.length; i++) {
    const m = masters[i];
    const uid = i === 0 ? groupUid : `${groupUid}#${i + 1}`;
    if (!m.dtstart) {
      run.acct.fail(m, m.dtstartProblem ?? 'no DTSTART');
      continue;
    }
    // Content first, so a missing SUMMARY is warned about in file order.
    run.contents.of(m, undefined);
    const f = frameOf(m.dtstart, run.ctx);
    const s = spanOf(m.dtstart, m.dtend, m.duration, f, run.ctx);
    if (s && 'error' in s) {
      run.acct.fail(m, s.error);
      continue;
    }
    framed.push({ e: m, f, span: s ?? defaultSpan(f), uid });
  }
  return framed;
}

/**
 * Each override: its own times (DTSTART, else the RECURRENCE-ID), span from its DTEND/DURATION, else
 * the master's (partial overrides), properties missing in it inherited from the master.
 */
function overrideDrafts(overrides: Override[], master: FramedMaster | undefined, groupUid: string, run: FileRun): Pending[] {
  if (!overrides.length) return NO_PENDING;
  const { ctx } = run;
  const recurring = !master || master.e.rrules.length > 0 || master.e.rdates.length > 0;
  const masterKey = master ? selectorOf(master.e.dtstart!, master.f, ctx).key : undefined;
  // A single (non-recurring) event is identified by its UID alone, so moving it updates it in place;
  // instances of a series by UID + original start, so an override that moves one keeps its identity.
  const identityFor = (uid: string, key: string): string => (recurring || key !== masterKey ? `${uid}|${key}` : uid);
  const out: Pending[] = [];
  for (const ov of overrides) {
    const e = ov.e;
    run.contents.of(e, master?.e);
    const startT = e.dtstart ?? e.recurrenceId!;
    const f = frameOf(startT, ctx);
    const s = spanOf(startT, e.dtend, e.duration, f, ctx);
    if (s && 'error' in s) {
      run.acct.fail(e, s.error);
      continue;
    }
    const span = s ?? (master && (master.f.kind === 'date') === (f.kind === 'date') ? master.span : defaultSpan(f));
    const uid = master?.uid ?? groupUid;
    if (!master && (e.rrules.length || e.rdates.length)) {
      out.push(...orphanSeriesDrafts(ov, f, span, uid, run));
      continue;
    }
    const o = place(frameLocal(startT, f, ctx), span, f);
    run.acct.produce(1);
    if (!kept(o, run)) continue;
    out.push({ sort: o.utc, e, base: master?.e, o, f, identity: identityFor(uid, ov.key), occurrence: recurring ? ov.key : undefined });
  }
  return out;
}

/**
 * An orphan override that carries its own RRULE/RDATE (khal writes RANGE=THISANDFUTURE this way):
 * expanded; its first instance keeps the RECURRENCE-ID as identity.
 */
function orphanSeriesDrafts(ov: Override, f: Frame, span: Span, uid: string, run: FileRun): Pending[] {
  const e = ov.e;
  const first = place(frameLocal(e.dtstart ?? e.recurrenceId!, f, run.ctx), span, f).key;
  const out: Pending[] = [];
  for (const o of runSeries(e, f, span, [], 0, uid, run)) {
    if (!kept(o, run)) continue;
    const key = o.key === first ? ov.key : o.key;
    out.push({ sort: o.utc, e, base: undefined, o, f, identity: `${uid}|${key}`, occurrence: key });
  }
  return out;
}

/** A RANGE=THISANDFUTURE override: instances from `from` on move by `delta` and take its properties. */
interface Shift {
  from: number;
  delta: number;
  span: Span;
  frame: Frame;
  ev: RawEvent;
}

const NO_SHIFTS: { shifts: Shift[]; reach: number } = Object.freeze({ shifts: [], reach: 0 });

/** The shifts of the RANGE=THISANDFUTURE overrides, sorted, and how far they reach beyond the window. */
function thisAndFutureShifts(m: FramedMaster, ranges: Override[], ctx: TimeContext): { shifts: Shift[]; reach: number } {
  if (!ranges.length) return NO_SHIFTS;
  let reach = 0;
  const shifts = ranges.map((r) => {
    const t = r.e.dtstart ?? r.e.recurrenceId!;
    const rf = frameOf(t, ctx);
    const rStart = instantOf(r.e.recurrenceId!, ctx, m.f.zone);
    const newStart = instantOf(t, ctx, rf.zone);
    const s = spanOf(t, r.e.dtend, r.e.duration, rf, ctx);
    const span = s && !('error' in s) ? s : m.span;
    reach = Math.max(reach, Math.abs(newStart - rStart) + span.days * DAY + span.seconds);
    return { from: rStart, delta: newStart - rStart, span, frame: rf, ev: r.e };
  });
  shifts.sort((a, b) => a.from - b.from);
  return { shifts, reach };
}

/**
 * RANGE=THISANDFUTURE: the last range starting at or before this instance moves it by the same offset
 * and gives it that override's properties and length; the identity keeps the original.
 */
function shifted(o0: Occ, m: FramedMaster, shifts: Shift[]): { o: Occ; f: Frame; ev: RawEvent; base?: RawEvent } {
  for (let k = shifts.length - 1; k >= 0; k--) {
    const sh = shifts[k];
    if (o0.utc < sh.from) continue;
    const wall = utcToWall(sh.frame.zone, o0.utc + sh.delta);
    const o = place(sh.frame.kind === 'date' ? Math.floor(wall / DAY) * DAY : wall, sh.span, sh.frame);
    return { o, f: sh.frame, ev: sh.ev, base: m.e };
  }
  return { o: o0, f: m.f, ev: m.e };
}

const NO_SELECTORS: Selector[] = [];

/** Masters expanded; later distinct masters sharing the UID the same way under suffixed identities. */
function masterDrafts(masters: FramedMaster[], overrides: Override[], run: FileRun): Pending[] {
  const out: Pending[] = [];
  for (let i = 0; i < masters.length; i++) {
    const m = masters[i];
    const isRecurring = m.e.rrules.length > 0 || m.e.rdates.length > 0;
    const own = i === 0 ? overrides : [];
    const { shifts, reach } = thisAndFutureShifts(m, own.length ? own.filter((o) => o.e.thisAndFuture) : own, run.ctx);
    const occs = runSeries(m.e, m.f, m.span, own.length ? own.map((o) => o.sel) : NO_SELECTORS, reach, m.uid, run);
    for (const o0 of occs) {
      // Without RANGE=THISANDFUTURE overrides (nearly every series) each instance is the master's as placed.
      let o = o0;
      let f = m.f;
      let ev = m.e;
      let base: RawEvent | undefined;
      if (shifts.length) ({ o, f, ev, base } = shifted(o0, m, shifts));
      if (!kept(o, run)) continue;
      const key = isRecurring ? o0.key : undefined;
      const identity = key !== undefined ? `${m.uid}|${key}` : m.uid;
      // A shifted instance is still the master's: the master counts as drafted too.
      out.push({ sort: o.utc, e: ev, base, o, f, identity, occurrence: key, alsoDrafted: ev !== m.e ? m.e : undefined });
    }
  }
  return out;
}

/** Expand one series within the per-series and per-file work limits, reporting caps and runaways. */
function runSeries(e: RawEvent, f: Frame, span: Span, replaced: Selector[], reach: number, uid: string, run: FileRun): Occ[] {
  const { acct, budget, cap } = run;
  const seriesBudget: Budget = { remaining: Math.min(PER_SERIES_WORK, Math.max(0, budget.remaining)) };
  const granted = seriesBudget.remaining;
  if (!e.dtstart) {
    acct.fail(e, 'no usable DTSTART for its recurrence');
    return [];
  }
  let res: ReturnType<typeof expandSeries>;
  try {
    res = expandSeries({ event: e, frame: f, span, replaced, window: run.window, reach, cap, budget: seriesBudget, ctx: run.ctx });
  } catch (err) {
    // Damage nothing else caught must cost this VEVENT only, never the whole file.
    acct.fail(e, `its recurrence could not be expanded: ${(err as Error).message}`);
    return [];
  }
  budget.remaining -= granted - Math.max(0, seriesBudget.remaining);
  acct.produce(res.produced);
  if (run.bounds) {
    if (res.after !== undefined) run.bounds.toHi = Math.min(run.bounds.toHi, res.after);
    if (e.rrules.length) run.bounds.toHi = Math.min(run.bounds.toHi, run.window.to + SEEN_PAST_WINDOW);
  }
  if (res.truncated) acct.warn(`UID ${uid}: more than ${cap} occurrences in the window; only the first ${cap} kept`);
  if (res.exhausted) {
    const msg = `recurrence expansion stopped at the work limit (runaway RRULE ${e.rrules.map((r) => r.freq).join(',')}); ${res.occs.length} occurrence(s) kept`;
    acct.warn(`UID ${uid}: ${msg}`);
    if (!res.occs.length) acct.fail(e, msg);
  }
  return res.occs;
}

/** The draft of one occurrence of `e` (inheriting from `base`), kept or failed by the accounting. */
function emit(e: RawEvent, base: RawEvent | undefined, o: Occ, f: Frame, identity: string, occurrence: string | undefined, run: FileRun): boolean {
  const c = run.contents.of(e, base);
  return run.acct.addDraft(e, occurrenceDraft(c, { e, o, f, identity, occurrence, source: run.source, status: run.status, asTags: run.asTags }));
}
