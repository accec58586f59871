import type { EventDraft, ItemFailure, Normalized } from '../../model/draft.ts';
import { checkEventDraft } from '../../model/draft-check.ts';
import { WarningList } from '../../ical/warnings.ts';
import { IcsLimitError } from './errors.ts';
import type { RawEvent } from './event.ts';

/**
 * What became of each VEVENT of one file, and what the file produced: drafts and failure items in
 * output order, warnings, and the file's output budget. Every VEVENT ends in exactly one outcome, so
 * the summary's four counts add up to the VEVENTs read.
 */
export type Outcome = 'drafted' | 'failed' | 'outsideWindow' | 'superseded';

export interface Accounting {
  drafted: number;
  failed: number;
  outsideWindow: number;
  superseded: number;
}

/** `VEVENT #3 at line 40 (UID abc)`: how messages name a VEVENT. */
export function label(e: RawEvent): string {
  return `VEVENT #${e.index} at line ${e.line}${e.uid ? ` (UID ${e.uid})` : ''}`;
}

/** The empty lists a probe puts in place of parts already found valid (the schema only reads them). */
const NO_PARTS: never[] = Object.freeze([]) as unknown as never[];

export class FileAccounting {
  readonly items: Normalized<EventDraft>[] = [];
  readonly warnings = new WarningList();
  /** Drafts flagged `cancelled`. */
  cancelled = 0;
  /** Recurring series (masters with RRULE/RDATE, and groups of overrides without master). */
  series = 0;
  private readonly outcome: Outcome[];
  /** Drafts of UID groups reused from the last run's record instead of made (reuse.ts): counted, not listed in `items`. */
  reusedDrafts = 0;
  /** Everything expansion produced so far (kept or not): the file's output budget. */
  private produced = 0;
  /** 1 for the VEVENTs (by index) whose draft passed the schema once (their other occurrences share the content). */
  private readonly validated: Uint8Array;
  /**
   * Venues, organizer lists and term lists that passed the schema inside a draft. Drafts of many
   * VEVENTs share them (content.ts), so each is checked once: checking those nested parts again was
   * half the schema's time on a big feed.
   */
  private readonly validParts = new WeakSet<object>();

  private readonly source: string;
  private readonly maxOccurrences: number;

  constructor(veventCount: number, source: string, maxOccurrences: number) {
    this.outcome = new Array<Outcome>(veventCount).fill('outsideWindow');
    this.validated = new Uint8Array(veventCount + 1);
    this.source = source;
    this.maxOccurrences = maxOccurrences;
  }

  warn(w: string): void {
    this.warnings.add(w);
  }

  /** Counts occurrences produced; past the file's limit the whole file fails (IcsLimitError). */
  produce(n: number): void {
    this.produced += n;
    if (this.produced > this.maxOccurrences) throw new IcsLimitError(this.source, 'occurrences', this.maxOccurrences);
  }

  /** Occurrences produced so far (see produce). */
  get producedSoFar(): number {
    return this.produced;
  }

  outcomeOf(e: RawEvent): Outcome {
    return this.outcome[e.index - 1];
  }

  mark(e: RawEvent, o: Outcome): void {
    this.outcome[e.index - 1] = o;
  }

  /** The VEVENT fails: one failure item with the reason, and the VEVENT counts as failed. */
  fail(e: RawEvent, reason: string): void {
    this.mark(e, 'failed');
    const f: ItemFailure = { kind: 'event', origin: { source: this.source, line: e.line, uid: e.uid }, reason: `${label(e)}: ${reason}`, raw: e.uid };
    this.items.push({ ok: false, failure: f });
  }

  /**
   * Keeps a draft of `e`, or fails `e` when the draft is invalid. The schema is checked once per VEVENT
   * (content is shared by its occurrences, and the per-occurrence fields are produced in the schema's
   * format); the end >= start rule is checked every time.
   */
  addDraft(e: RawEvent, draft: EventDraft): boolean {
    if (!this.validated[e.index]) {
      const r = checkEventDraft(this.probe(draft));
      if (!r.success) {
        this.fail(e, r.error.issues.map((i) => `${i.path.join('.') || 'draft'}: ${i.message}`).join('; '));
        return false;
      }
      this.validated[e.index] = 1;
      // Four tests rather than a loop over a new array per draft.
      const ok = this.validParts;
      if (draft.venue) ok.add(draft.venue);
      if (draft.organizers) ok.add(draft.organizers);
      if (draft.categories) ok.add(draft.categories);
      if (draft.tags) ok.add(draft.tags);
    } else if (draft.end_date < draft.start_date) {
      this.fail(e, `end is before start (${draft.end_date} < ${draft.start_date})`);
      return false;
    }
    this.items.push({ ok: true, draft });
    if (draft.cancelled) this.cancelled++;
    if (this.outcomeOf(e) !== 'failed') this.mark(e, 'drafted');
    return true;
  }

  /**
   * The draft the schema checks: parts already found valid are replaced by empty valid ones (each
   * part of an object schema is checked on its own, so the verdict and the issues are the same).
   */
  private probe(d: EventDraft): EventDraft {
    const ok = this.validParts;
    if ((d.venue !== undefined && !ok.has(d.venue)) || !ok.has(d.organizers) || !ok.has(d.categories) || !ok.has(d.tags)) return d;
    return { ...d, venue: undefined, organizers: NO_PARTS, categories: NO_PARTS, tags: NO_PARTS };
  }

  totals(): Accounting {
    const acc: Accounting = { drafted: 0, failed: 0, outsideWindow: 0, superseded: 0 };
    for (const o of this.outcome) acc[o]++;
    return acc;
  }
}
