import pino, { type Logger } from 'pino';

/** Credentials never reach a log line, whatever object is logged (DESIGN rule 6). */
const REDACT = [
  'password',
  '*.password',
  '*.*.password',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'auth',
  '*.auth',
  'connection.auth',
];

export function createLogger(opts: { level?: string; name?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  return pino(
    {
      name: opts.name ?? 'calsync',
      level: opts.level ?? process.env.LOG_LEVEL ?? 'info',
      redact: { paths: REDACT, censor: '[redacted]' },
      base: { pid: process.pid },
      hooks: { logMethod: dropRepeatedBindings },
    },
    (opts.destination ?? process.stderr) as pino.DestinationStream,
  );
}

/**
 * A field the logger is already bound to (a job's child logger carries `source`) and that the call
 * repeats with the same value would appear twice in the JSON line; the call's copy is dropped.
 */
function dropRepeatedBindings(this: Logger, args: Parameters<pino.LogFn>, method: pino.LogFn): void {
  const first = args[0] as unknown;
  if (first && typeof first === 'object' && !(first instanceof Error)) {
    const bound = this.bindings();
    const fields = first as Record<string, unknown>;
    const repeated = Object.keys(fields).filter((k) => Object.hasOwn(bound, k) && bound[k] === fields[k]);
    if (repeated.length) args[0] = Object.fromEntries(Object.entries(fields).filter(([k]) => !repeated.includes(k)));
  }
  (method as (...a: unknown[]) => void).apply(this, args);
}

export type { Logger };
