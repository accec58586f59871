import type { EventDraft, Normalized } from '../model/draft.ts';
import type { ImageGuard } from '../sources/fetch/image-guard.ts';
import type { LedgerListing } from '../write/ledger-snapshot.ts';
import type { SiteWriter } from '../write/writer.ts';

/**
 * The first parts of an ICS feed planned while the parser thread still reads the rest: an unchanged
 * re-import is mostly this planning (no request), which otherwise waits for the last draft. It is
 * safe because nothing it does counts before the run may write: the writer's client and ledger wait
 * at the run's WriteGate (src/write/gate.ts) and its report holds what it is told (RunReport.hold),
 * so a feed refused late leaves no write, no ledger change and no report item from here.
 *
 * Only what needs no more of the feed is planned: parts (in file order, as the write batches of
 * import-ics.ts would cut them) whose every live draft the ledger snapshot knows and whose image
 * URLs the run's guard lets through; the first part that is not stops it, and the rest of the feed
 * takes the usual way after prime() (listing spans, image counts and the changed-UIDs guard need the
 * whole feed). Parts are written one after another in file order, so duplicates, cancellations and
 * report items come out as the batches would have given them.
 */
export class EarlyPlan {
  readonly #items: Normalized<EventDraft>[] = [];
  #planned = 0;
  #stopped = false;
  #error: unknown;
  #chain: Promise<void> = Promise.resolve();

  readonly #writer: SiteWriter;
  readonly #snapshot: Promise<LedgerListing | undefined>;
  readonly #guard: ImageGuard;
  /** Items per part: the write batch import-ics.ts cuts from drafts the ledger knows. */
  readonly #part: number;
  readonly #signal?: AbortSignal;

  constructor(writer: SiteWriter, snapshot: Promise<LedgerListing | undefined>, guard: ImageGuard, part: number, signal?: AbortSignal) {
    this.#writer = writer;
    this.#snapshot = snapshot;
    this.#guard = guard;
    this.#part = part;
    this.#signal = signal;
  }

  /** Items as the parser hands them over, in file order. */
  add(items: Normalized<EventDraft>[]): void {
    for (const it of items) this.#items.push(it);
    this.#chain = this.#chain.then(() => this.#next());
  }

  /**
   * Stops planning and waits for the part in progress (its writes wait for the gate: open it first,
   * or refuse it). How many items, from the first, were planned early; an error of their planning
   * is thrown here, as a batch's would be.
   */
  async finish(): Promise<number> {
    this.#stopped = true;
    await this.#chain;
    if (this.#error !== undefined) throw this.#error;
    return this.#planned;
  }

  async #next(): Promise<void> {
    while (!this.#stopped && this.#items.length - this.#planned >= this.#part) {
      const part = this.#items.slice(this.#planned, this.#planned + this.#part);
      const snapshot = this.#signal?.aborted ? undefined : await this.#knownBy(part);
      if (!snapshot) {
        this.#stopped = true;
        return;
      }
      this.#writer.primeKnown(part, snapshot);
      try {
        await this.#writer.writeEvents(part);
      } catch (err) {
        this.#error = err;
        this.#stopped = true;
        return;
      }
      this.#planned += part.length;
    }
  }

  /** The ledger snapshot, when it knows every live draft of the part and the part's images may go to the site. */
  async #knownBy(part: Normalized<EventDraft>[]): Promise<LedgerListing | undefined> {
    const snapshot = await this.#snapshot;
    if (!snapshot) return undefined;
    const urls = new Set<string>();
    for (const it of part) {
      if (!it.ok || it.draft.cancelled) continue;
      const d = it.draft;
      if (!snapshot.has(this.#writer.slugOf(d))) return undefined;
      if (d.image) urls.add(d.image);
      if (d.venue?.image) urls.add(d.venue.image);
      for (const o of d.organizers) if (o.image) urls.add(o.image);
    }
    for (const url of urls) if ((await this.#guard.problem(url)) !== undefined) return undefined;
    return snapshot;
  }
}
