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

  private lastLine = '';

  update = (p: RunProgress): void => {
    if (!this.enabled) return;
    const newPhase = p.phase !== this.phase;
    if (newPhase) {
      this.phase = p.phase;
      this.started = Date.now();
    }
    const now = Date.now();
    // A log file or CI gets a line per phase, the finished line, and a heartbeat every 30 s.
    const interval = this.tty ? 100 : 30_000;
    const finished = p.total !== undefined && p.done >= p.total;
    if (now - this.lastPrint < interval && !finished && !(newPhase && !this.tty)) return;
    // The phase name may come from a job's progress in Redis: printed, never interpreted.
    const line = terminalSafe(progressText(p, (now - this.started) / 1000));
    if (!this.tty && line === this.lastLine) return;
    this.lastPrint = now;
    this.lastLine = line;
    if (this.tty) this.stream.write(`\r\x1b[2K${line}`);
    else this.stream.write(`${line}\n`);
  };

  done(): void {
    if (this.enabled && this.tty && this.lastPrint) this.stream.write('\r\x1b[2K');
  }
}

/**
 * The text of one progress reading. Nothing done yet says "working" with the time spent (a 3-second
 * parse is not `fetch: 0`); a rate is shown once it means something (at least one item, one second).
 */
export function progressText(p: RunProgress, secs: number): string {
  const rate = secs >= 1 && p.done > 0 ? p.done / secs : undefined;
  const rateText = rate === undefined ? '' : rate >= 1 ? ` ${rate.toFixed(0)}/s` : ` ${(rate * 60).toFixed(1)}/min`;
  const waited = secs >= 1 ? ` (${Math.floor(secs)} s)` : '';
  if (p.total !== undefined && p.total > 0) {
    const pct = Math.floor((p.done / p.total) * 100);
    const width = 24;
    const fill = Math.round((Math.min(pct, 100) / 100) * width);
    const eta = rate !== undefined && p.done < p.total ? ` ETA ${Math.ceil((p.total - p.done) / rate)}s` : '';
    return `${p.phase} [${'#'.repeat(fill)}${'-'.repeat(width - fill)}] ${pct}% ${p.done}/${p.total}${rateText}${eta}`;
  }
  if (p.done === 0) return `${p.phase}: working${waited}`;
  return `${p.phase}: ${p.done}${p.total !== undefined ? `/${p.total}` : ''}${rateText}`;
}
