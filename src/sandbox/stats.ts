/** Request counters for tests and benchmarks (side endpoints are not counted). */
export interface SandboxStats {
  total: number;
  /** POST/PUT/PATCH/DELETE on the REST routes */
  writes: number;
  /** e.g. "POST /events/by-slug/:slug", "GET /events" */
  byRoute: Record<string, number>;
  faults: { error: number; throttle: number; drop: number };
  /**
   * Repeats of a throttled request (same method, path, query and body) that came before the
   * Retry-After it was given expired, sent after the client could have seen the 429 (requests
   * already in flight then are not counted).
   */
  retryAfterViolations: number;
  /** the most REST requests that arrived within any one second (see StatsRecorder.peakRate) */
  peakPerSecond: number;
}

/** Small slack so a client that waits exactly Retry-After is not blamed for timer rounding. */
const SLACK_MS = 25;
/**
 * Requests arriving this soon after a 429 was sent were on their way before the client could read
 * it. A client that ignores Retry-After and retries after its own backoff (hundreds of ms) still counts.
 */
const REACTION_MS = 50;
/**
 * Arrival times kept for peakRate(): the latest ARRIVALS_CAP requests (~4 MB of numbers), far
 * more than a test or benchmark sends to one site; beyond it the oldest tenth is dropped.
 */
export const ARRIVALS_CAP = 500_000;

/** The most entries of ascending `times` inside any window [t, t + windowMs). */
export function peakInWindow(times: readonly number[], windowMs: number): number {
  let peak = 0;
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while (times[last]! - times[first]! >= windowMs) first++;
    peak = Math.max(peak, last - first + 1);
  }
  return peak;
}

export class StatsRecorder {
  private s: SandboxStats = StatsRecorder.empty();
  private readonly notBefore = new Map<string, { from: number; until: number }>();
  /** ascending: request() is called in arrival order with a monotonic clock */
  private times: number[] = [];

  static empty(): SandboxStats {
    return { total: 0, writes: 0, byRoute: {}, faults: { error: 0, throttle: 0, drop: 0 }, retryAfterViolations: 0, peakPerSecond: 0 };
  }

  request(method: string, route: string, write: boolean, nowMs: number): void {
    this.s.total++;
    if (this.times.length >= ARRIVALS_CAP) this.times.splice(0, ARRIVALS_CAP / 10);
    this.times.push(nowMs);
    if (write) this.s.writes++;
    const key = `${method} ${route}`;
    this.s.byRoute[key] = (this.s.byRoute[key] ?? 0) + 1;
  }

  /**
   * Checks a request that arrived at `arrivedMs` against the Retry-After given to an earlier one
   * with the same `identity` (see requestIdentity). Keyed by the whole request, not the path:
   * concurrent creates share `POST /events`, and one of them being throttled does not make the
   * others, sent before the 429 reached the client, repeats of it.
   */
  arrived(identity: string, arrivedMs: number): void {
    const w = this.notBefore.get(identity);
    if (w === undefined) return;
    if (arrivedMs + SLACK_MS < w.until) {
      if (arrivedMs >= w.from) this.s.retryAfterViolations++;
    } else this.notBefore.delete(identity);
  }

  fault(kind: 'error' | 'throttle' | 'drop'): void {
    this.s.faults[kind]++;
  }

  throttled(identity: string, untilMs: number, sentMs = untilMs): void {
    this.notBefore.set(identity, { from: sentMs + REACTION_MS, until: untilMs });
  }

  /** Arrival times (ms, performance.now()) of the counted requests, oldest first. */
  arrivals(): number[] {
    return [...this.times];
  }

  /** The most requests that arrived within any window of `windowMs`: the rate a site limit sees. */
  peakRate(windowMs = 1000): number {
    return peakInWindow(this.times, windowMs);
  }

  snapshot(): SandboxStats {
    return { ...structuredClone(this.s), peakPerSecond: this.peakRate(1000) };
  }

  reset(): void {
    this.s = StatsRecorder.empty();
    this.notBefore.clear();
    this.times = [];
  }
}
