import type { Ledger, LedgerEntry, LedgerKind } from './ledger.ts';

/**
 * Holds a run's writes until it may write at all. An ICS import plans the first drafts while its
 * parser thread still reads the feed (src/runs/import-ics.ts); the feed can still be refused after
 * that (too many occurrences, a time or memory limit, a parse error, the changed-UIDs guard), and a
 * refused feed must leave nothing written. Every site write (the client's non-GET calls, see
 * SiteConnection.gate) and every ledger write (gatedLedger) waits here: open() lets them go,
 * refuse() fails each of them with the refusal, so none ever reaches the site or the ledger.
 */
export class WriteGate {
  readonly #passed: Promise<void>;
  #open!: () => void;
  #refuse!: (err: Error) => void;

  constructor() {
    this.#passed = new Promise<void>((resolve, reject) => {
      this.#open = resolve;
      this.#refuse = reject;
    });
    // Nobody may be waiting when the run is refused.
    this.#passed.catch(() => undefined);
  }

  /** Resolves once writes may go; rejects with the reason once the run was refused. */
  wait(): Promise<void> {
    return this.#passed;
  }

  open(): void {
    this.#open();
  }

  refuse(reason: Error): void {
    this.#refuse(reason);
  }
}

/** The ledger with its writes (set, remove, claimName) held by the gate; reads go straight through. */
export function gatedLedger(ledger: Ledger, gate: WriteGate): Ledger {
  return {
    getMany: (kind, slugs) => ledger.getMany(kind, slugs),
    set: async (kind: LedgerKind, slug: string, entry: LedgerEntry) => {
      await gate.wait();
      return ledger.set(kind, slug, entry);
    },
    remove: async (kind, slug, retired) => {
      await gate.wait();
      return ledger.remove(kind, slug, retired);
    },
    retirements: (kind, slugs) => ledger.retirements(kind, slugs),
    forgetRetirements: async (kind, slugs) => {
      await gate.wait();
      return ledger.forgetRetirements(kind, slugs);
    },
    forget: async (kinds) => {
      await gate.wait();
      return ledger.forget(kinds);
    },
    sample: (kind, n) => ledger.sample(kind, n),
    entries: (kind) => ledger.entries(kind),
    ...(ledger.storedPages ? { storedPages: (kind: LedgerKind) => ledger.storedPages!(kind) } : {}),
    size: (kind) => ledger.size(kind),
    claimName: async (kind, key, name) => {
      await gate.wait();
      return ledger.claimName(kind, key, name);
    },
    recordedNames: (kind, keys) => ledger.recordedNames(kind, keys),
  };
}
