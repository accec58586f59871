import { describe, expect, it } from 'vitest';
import type { CalendarClient } from '../../src/api/index.ts';
import { eventBody, useTarget, type Target } from './harness.ts';

/**
 * A cost of exactly "0" is no cost on the site (PHP's empty("0")): the event answers `cost: ""` and no
 * values, so "free" is lost; "0.00", " 0" and "0 INR" keep it and read "Free". Measured on TEC 6.17.1
 * and 6.17.2; the sandbox answers the same (src/sandbox/event-write.ts). Runs against the sandbox and,
 * with CALSYNC_CONTRACT_URL, a real site.
 */
const CASES: Array<{ sent: string; cost: string; values: string[] }> = [
  { sent: '0', cost: '', values: [] },
  { sent: '0.00', cost: 'Free', values: ['0.00'] },
  { sent: '0 INR', cost: 'Free', values: ['0'] },
  { sent: '15', cost: '$15', values: ['15'] },
];

for (const version of ['6.17.2', '6.17.1'] as const) {
  describe(`a zero cost (${version} sandbox, or the real site)`, () => {
    let t: Target;
    let c: CalendarClient;
    useTarget(
      (target) => {
        t = target;
        c = target.client();
      },
      { version },
    );

    it.each(CASES)('cost "$sent" reads "$cost"', async ({ sent, cost, values }) => {
      const ev = await c.events.create({ ...eventBody(`${t.prefix} cost ${sent}`, 7), cost: sent } as never);
      t.track('events', ev.id);
      expect([ev.cost, (ev.cost_details as { values: string[] }).values]).toEqual([cost, values]);
    });
  });
}
