import { NetworkError, type NetworkErrorInit } from './network-error.ts';

/** Which limit ran out: a per-attempt undici timer, or the whole call's deadline (`timeouts.totalMs`). */
export type TimeoutKind = 'connect' | 'headers' | 'body' | 'total';

/** A timeout; a NetworkError too, so callers that treat transport failures alike can catch one class. */
export class TimeoutError extends NetworkError {
  override name = 'TimeoutError';
  readonly kind: TimeoutKind;
  readonly timeoutMs: number;

  constructor(init: NetworkErrorInit & { kind: TimeoutKind; timeoutMs: number }) {
    super(
      init,
      `${init.method} ${init.route} → ${init.kind} timeout (${init.timeoutMs} ms) after ${init.attempts} attempt(s)`,
    );
    this.kind = init.kind;
    this.timeoutMs = init.timeoutMs;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), kind: this.kind, timeoutMs: this.timeoutMs };
  }
}
