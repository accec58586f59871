/**
 * Runs `fn` over `items` with at most `concurrency` in flight; results keep input order.
 * Sites are written with bounded parallelism (DESIGN rule 7), never Promise.all over a whole feed.
 */
export async function mapConcurrent<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      results[i] = await fn(items[i] as T, i);
    }
  });
  await Promise.all(workers);
  return results;
}

/**
 * Tasks started one by one as their input arrives (pages of a listing), at most `limit` running:
 * `run` waits for a free slot. The first failure is kept: later `run` calls and `drain` throw it,
 * and `drain` first waits for every task still running (none is left behind unobserved).
 */
export class BoundedTasks {
  private readonly limit: number;
  private readonly running = new Set<Promise<void>>();
  private failure: { err: unknown } | undefined;

  constructor(limit: number) {
    this.limit = Math.max(1, Math.floor(limit));
  }

  async run(fn: () => Promise<void>): Promise<void> {
    while (this.running.size >= this.limit && !this.failure) await Promise.race(this.running);
    if (this.failure) throw this.failure.err;
    const task: Promise<void> = fn()
      .catch((err: unknown) => void (this.failure ??= { err }))
      .finally(() => this.running.delete(task));
    this.running.add(task);
  }

  async drain(): Promise<void> {
    while (this.running.size) await Promise.race(this.running);
    if (this.failure) throw this.failure.err;
  }
}

/**
 * A counting semaphore: at most `limit` holders at once across every caller that shares it. The
 * writer keeps one per run, so batches that overlap (the next one starts while the last requests of
 * the one before finish) never put more than the site's concurrency in flight together.
 */
export class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    this.#free = Math.max(1, Math.floor(limit));
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await fn();
    } finally {
      // The slot passes straight to the next waiter, so no newcomer can take it in between.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}
