/** What `Settled.now` answers for a key not resolved yet (or failed). */
export const UNSETTLED: unique symbol = Symbol('unsettled');

/**
 * One promise per key (work done once per run), and the value itself once it has resolved: a
 * re-import asks for the same few terms, venues and organizers for every event, and reading them
 * synchronously spares each event a chain of awaits (src/write/writer.ts linksNow).
 */
export class Settled<V> {
  private readonly pending = new Map<string, Promise<V>>();
  private readonly values = new Map<string, V>();

  get(key: string, make: () => Promise<V>): Promise<V> {
    let p = this.pending.get(key);
    if (!p) {
      p = make();
      this.pending.set(key, p);
      // A rejection stays the promise's to report (to whoever awaits it); only values are kept.
      p.then((v) => void this.values.set(key, v), () => undefined);
    }
    return p;
  }

  has(key: string): boolean {
    return this.pending.has(key);
  }

  now(key: string): V | typeof UNSETTLED {
    return this.values.has(key) ? (this.values.get(key) as V) : UNSETTLED;
  }
}
