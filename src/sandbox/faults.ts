import { z } from 'zod';
import { prng } from '../util/random.ts';
export { prng };

/** Fault knobs, as setFaults() and POST /__sandbox/faults take them. */
export const FaultSettings = z.object({
  latencyMs: z.number().min(0).optional(),
  latencyJitterMs: z.number().min(0).optional(),
  errorRate: z.number().min(0).max(1).optional(),
  throttleRate: z.number().min(0).max(1).optional(),
  retryAfterSeconds: z.number().min(0).optional(),
  dropRate: z.number().min(0).max(1).optional(),
}).strict();
export type FaultSettings = z.infer<typeof FaultSettings>;

export type Fault = { kind: 'none' } | { kind: 'drop' } | { kind: 'throttle'; retryAfter: number } | { kind: 'error'; status: 500 | 502 | 503 };


/**
 * Decides, per REST request, the delay and the fault. Every request draws the same number of
 * values from the seeded generator, so a given seed and request order give the same faults.
 */
export class FaultPlan {
  settings: Required<FaultSettings>;
  private readonly random: () => number;

  constructor(settings: FaultSettings, seed: number) {
    this.settings = {
      latencyMs: 0, latencyJitterMs: 0, errorRate: 0, throttleRate: 0, retryAfterSeconds: 1, dropRate: 0,
      ...stripUndefined(settings),
    };
    this.random = prng(seed);
  }

  update(settings: FaultSettings): void {
    this.settings = { ...this.settings, ...stripUndefined(settings) };
  }

  next(): { delayMs: number; fault: Fault } {
    const s = this.settings;
    const jitter = this.random();
    const roll = this.random();
    const pick = this.random();
    const delayMs = s.latencyMs + jitter * s.latencyJitterMs;
    let fault: Fault = { kind: 'none' };
    if (roll < s.dropRate) fault = { kind: 'drop' };
    else if (roll < s.dropRate + s.throttleRate) fault = { kind: 'throttle', retryAfter: s.retryAfterSeconds };
    else if (roll < s.dropRate + s.throttleRate + s.errorRate) fault = { kind: 'error', status: ([500, 502, 503] as const)[Math.floor(pick * 3)] };
    return { delayMs, fault };
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
