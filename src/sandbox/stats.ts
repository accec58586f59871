/** Request counters for tests and benchmarks (side endpoints are not counted). */
export interface SandboxStats {
  total: number;
  /** POST/PUT/PATCH/DELETE on the REST routes */
  writes: number;
  /** e.g. "POST /events/by-slug/:slug", "GET /events" */
  byRoute: Record<string, number>;
  faults: { error: number; throttle: number; drop: number };
  /**
   * Requests for the same method+path that came before the Retry-After they were given expired,
   * sent after the client could have seen the 429 (requests already in flight then are not counted).
   */
  retryAfterViolations: number;
}

/** Small slack so a client that waits exactly Retry-After is not blamed for timer rounding. */
const SLACK_MS = 25;
/**
 * Requests arriving this soon after a 429 was sent were on their way before the client could read
 * it (concurrent requests share paths such as POST /events). A client that ignores Retry-After and
 * retries after its own backoff (hundreds of ms) still counts.
 */
const REACTION_MS = 50;

export class StatsRecorder {
  private s: SandboxStats = StatsRecorder.empty();
  private readonly notBefore = new Map<string, { from: number; until: number }>();

  static empty(): SandboxStats {
    return { total: 0, writes: 0, byRoute: {}, faults: { error: 0, throttle: 0, drop: 0 }, retryAfterViolations: 0 };
  }

  request(method: string, route: string, write: boolean, path: string, nowMs: number): void {
    this.s.total++;
    if (write) this.s.writes++;
    const key = `${method} ${route}`;
    this.s.byRoute[key] = (this.s.byRoute[key] ?? 0) + 1;
    const w = this.notBefore.get(`${method} ${path}`);
    if (w !== undefined) {
      if (nowMs + SLACK_MS < w.until) {
        if (nowMs >= w.from) this.s.retryAfterViolations++;
      } else this.notBefore.delete(`${method} ${path}`);
    }
  }

  fault(kind: 'error' | 'throttle' | 'drop'): void {
    this.s.faults[kind]++;
  }

  throttled(method: string, path: string, untilMs: number, sentMs = untilMs): void {
    this.notBefore.set(`${method} ${path}`, { from: sentMs + REACTION_MS, until: untilMs });
  }

  snapshot(): SandboxStats {
    return structuredClone(this.s);
  }

  reset(): void {
    this.s = StatsRecorder.empty();
    this.notBefore.clear();
  }
}
