import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Snapshot, Store } from './store.ts';

const DEBOUNCE_MS = 100;

/**
 * Keeps the store in a JSON file: loaded once at start, written (write-then-rename, so a crash
 * never leaves half a file) ~100 ms after the last change and on close. While 100k events are
 * being written the interval stretches with the cost of a save, so saving never hogs the loop.
 */
export class Persistence {
  private readonly file: string;
  private readonly store: Store;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  private lastCostMs = 0;

  constructor(file: string, store: Store) {
    this.file = file;
    this.store = store;
  }

  load(): void {
    if (!existsSync(this.file)) return;
    const snapshot = JSON.parse(readFileSync(this.file, 'utf8')) as Snapshot;
    if (snapshot.format !== 1) throw new Error(`${this.file}: unknown sandbox data format ${String(snapshot.format)}`);
    this.store.load(snapshot);
  }

  changed(): void {
    this.dirty = true;
    if (this.timer || this.writing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A failed save stays dirty and is retried on the next change or on close.
      this.save().catch(() => {
        this.dirty = true;
      });
    }, Math.max(DEBOUNCE_MS, this.lastCostMs * 4));
    this.timer.unref();
  }

  private async save(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    const started = performance.now();
    const text = JSON.stringify(this.store.snapshot());
    const tmp = `${this.file}.${process.pid}.tmp`;
    this.writing = (async () => {
      await mkdir(dirname(this.file), { recursive: true });
      await writeFile(tmp, text);
      await rename(tmp, this.file);
    })();
    try {
      await this.writing;
    } finally {
      this.writing = undefined;
      this.lastCostMs = performance.now() - started;
    }
    if (this.dirty) this.changed();
  }

  /** Writes pending changes now (on close). */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    await this.writing;
    await this.save();
  }
}
