import { parseEntry, type Ledger, type LedgerEntry, type LedgerKind } from './ledger.ts';

/**
 * Read access to a source's ledger entries of one kind, as a run sees them: a snapshot read before
 * it wrote, with its own writes over it (SiteWriter); retirement walks its slugs.
 */
export interface LedgerListing {
  get(slug: string): LedgerEntry | undefined;
  has(slug: string): boolean;
  /** Every slug stored, an entry that does not read as one included (get() then says undefined). */
  slugs(): Iterable<string>;
}

/**
 * Every entry of a kind as stored when the run started, each read by schema only when asked for.
 * An unchanged re-import of the bench feed reads 17k entries and asks for almost none: its reused
 * UID groups carry their events' site ids (src/runs/group-reuse.ts) and retirement looks only at
 * the entries the run did not see (src/write/retire.ts). Parsing them all up front (JSON and schema)
 * was the largest share of that run's CPU on the import's thread after the parse itself
 * (bench/reimport-profile.ts).
 */
export class LedgerSnapshot implements LedgerListing {
  /** As stored (a string), then as read: the entry, or null when the value is not one. */
  readonly #values = new Map<string, string | LedgerEntry | null>();

  add(slug: string, stored: string | LedgerEntry): void {
    this.#values.set(slug, stored);
  }

  /** Slugs stored, as HLEN counts them (a value that is not an entry included). */
  get size(): number {
    return this.#values.size;
  }

  /** Whether anything is stored under `slug`, without reading it (as HKEYS would say). */
  holds(slug: string): boolean {
    return this.#values.has(slug);
  }

  get(slug: string): LedgerEntry | undefined {
    const v = this.#values.get(slug);
    if (typeof v !== 'string') return v ?? undefined;
    const e = parseEntry(v) ?? null;
    this.#values.set(slug, e);
    return e ?? undefined;
  }

  has(slug: string): boolean {
    return this.get(slug) !== undefined;
  }

  slugs(): Iterable<string> {
    return this.#values.keys();
  }

  /** Every entry that reads as one, each read now. */
  *entries(): IterableIterator<[string, LedgerEntry]> {
    for (const slug of this.#values.keys()) {
      const e = this.get(slug);
      if (e) yield [slug, e];
    }
  }
}

/**
 * Every entry of a kind, when the ledger holds at most `max` of them (else undefined: too large to
 * hold, read by slug instead). An import reads it while its feed is being parsed on another thread.
 */
export async function ledgerSnapshot(ledger: Ledger, kind: LedgerKind, max: number): Promise<LedgerSnapshot | undefined> {
  if ((await ledger.size(kind)) > max) return undefined;
  const out = new LedgerSnapshot();
  // By pages where the ledger has them: an async generator's step per entry (17k on the bench's
  // re-import) cost more than reading the entries themselves.
  if (ledger.storedPages) for await (const page of ledger.storedPages(kind)) for (let i = 0; i < page.length; i += 2) out.add(page[i]!, page[i + 1]!);
  else for await (const [slug, e] of ledger.entries(kind)) out.add(slug, e);
  return out;
}
