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
    },
    (opts.destination ?? process.stderr) as pino.DestinationStream,
  );
}

export type { Logger };
