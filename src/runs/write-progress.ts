import type { RunContext } from './context.ts';

/**
 * A run's write progress, at least once a second besides each batch's end: per batch alone, a batch
 * of 250 events took 8 s on a 30 events/s real site, and the progress line (CLI, `enqueue --wait`)
 * stood still meanwhile. Only steps forward are reported: a batch that ends after the ticker
 * already counted some events of the next one is no step back.
 */
export class WriteProgress {
  private shown = -1;
  private readonly ctx: RunContext;
  private readonly total: number;
  private readonly timer?: NodeJS.Timeout;

  /** `settled`: how many of the run's `total` items have their outcome now (written, unchanged, failed…). */
  constructor(ctx: RunContext, total: number, settled: () => number, everyMs = 1000) {
    this.ctx = ctx;
    this.total = total;
    if (!ctx.onProgress) return;
    this.timer = setInterval(() => void this.note(settled()).catch(() => undefined), everyMs);
    this.timer.unref();
  }

  async note(done: number): Promise<void> {
    const at = Math.min(done, this.total);
    if (at <= this.shown) return;
    this.shown = at;
    await this.ctx.onProgress?.({ phase: 'write', done: at, total: this.total });
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
