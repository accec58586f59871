import { Writable } from 'node:stream';
import { pino, type Level, type Logger } from 'pino';

/** A pino logger that keeps every line it writes (JSON, one a line), for a test to read back. */
export function capturedLog(level: Level = 'info'): { log: Logger; text(): string } {
  let lines = '';
  const log = pino({ level }, new Writable({ write(chunk, _e, cb) { lines += chunk; cb(); } }));
  return { log, text: () => lines };
}

/** UID groups an ICS import reused, one figure a run that logged one (src/runs/import-ics.ts), oldest first. */
export function reusedGroups(logText: string): number[] {
  return [...logText.matchAll(/"reused":(\d+)/g)].map((m) => Number(m[1]));
}
