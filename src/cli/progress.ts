import type { RunProgress } from '../runs/context.ts';
import { terminalSafe } from '../util/terminal.ts';

/**
 * Progress on stderr: one redrawn line with items/s and ETA on a TTY, plain lines every few
 * seconds otherwise (CI, logs), nothing with --json unless asked.
 */
export class ProgressLine {
  private readonly tty: boolean;
  private readonly stream: NodeJS.WriteStream;
  private lastPrint = 0;
  private started = Date.now();
  private phase = '';
  private enabled: boolean;

  constructor(opts: { enabled?: boolean; stream?: NodeJS.WriteStream } = {}) {
    this.stream = opts.stream ?? process.stderr;
    this.tty = Boolean(this.stream.isTTY);
    this.enabled = opts.enabled ?? true;
  }

  update = (p: RunProgress): void => {
    if (!this.enabled) return;
    if (p.phase !== this.phase) {
      this.phase = p.phase;
      this.started = Date.now();
    }
    const now = Date.now();
    const interval = this.tty ? 100 : 5000;
    const finished = p.total !== undefined && p.done >= p.total;
    if (now - this.lastPrint < interval && !finished) return;
    this.lastPrint = now;
    const secs = (now - this.started) / 1000;
    const rate = secs > 0 ? p.done / secs : 0;
    let line = `${p.phase}: ${p.done}${p.total !== undefined ? `/${p.total}` : ''}`;
    if (p.total !== undefined && p.total > 0) {
      const pct = Math.floor((p.done / p.total) * 100);
      const width = 24;
      const fill = Math.round((pct / 100) * width);
      const eta = rate > 0 ? Math.ceil((p.total - p.done) / rate) : undefined;
      line = `${p.phase} [${'#'.repeat(fill)}${'-'.repeat(width - fill)}] ${pct}% ${p.done}/${p.total} ${rate.toFixed(0)}/s${eta !== undefined ? ` ETA ${eta}s` : ''}`;
    }
    // The phase name may come from a job's progress in Redis: printed, never interpreted.
    line = terminalSafe(line);
    if (this.tty) this.stream.write(`\r\x1b[2K${line}`);
    else this.stream.write(`${line}\n`);
  };

  done(): void {
    if (this.enabled && this.tty && this.lastPrint) this.stream.write('\r\x1b[2K');
  }
}
