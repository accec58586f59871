import { deadlineError } from './failures.ts';

/**
 * One fetch's cancellation: the caller's signal (a BullMQ job being cancelled) combined with our
 * total deadline. Both abort the same in-flight work, but they mean different things afterwards.
 */
export interface Deadline {
  /** Aborts when either the caller cancels or the total time is up; pass to every I/O call. */
  readonly signal: AbortSignal;
  /**
   * If an abort explains `err`, the error to throw instead: the caller's own reason when they
   * cancelled (not a fetch failure, so not a FetchError), a `timeout` FetchError when the
   * deadline ran out. Undefined when nothing was aborted.
   */
  explain(err: unknown, url: string): unknown;
}

export function startDeadline(totalMs: number, caller?: AbortSignal): Deadline {
  const timer = AbortSignal.timeout(totalMs);
  const signal = caller ? AbortSignal.any([caller, timer]) : timer;
  return {
    signal,
    explain(err, url) {
      if (caller?.aborted) return caller.reason;
      if (timer.aborted) return deadlineError(url, totalMs, err);
      return undefined;
    },
  };
}
