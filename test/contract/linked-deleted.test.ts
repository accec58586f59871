import { describe, expect, it } from 'vitest';
import { goneAs } from '../../src/api/index.ts';
import { caught, eventBody, useTarget, type Target } from './harness.ts';

/**
 * A venue deleted for good on the site (WordPress core's `DELETE /wp/v2/tribe_venue/<id>?force=true`,
 * or an emptied trash): the v1 read of its id is refused as an unknown id (which the client takes
 * as gone, not as in the trash), and an event write naming that id is refused, so a writer that
 * kept the id (the ledger) must create the venue again rather than send it
 * (src/write/linked.ts, `usable`). Runs against the sandbox and, with CALSYNC_CONTRACT_URL, a real site.
 */
describe('a venue deleted for good', () => {
  let t: Target;
  useTarget((target) => (t = target));

  it('reads as gone (not trashed), and an event write naming its id is refused: 400 rest_invalid_param venue', async () => {
    const c = t.client();
    const wp = t.client({ namespace: 'wp/v2' });
    const venue = await c.venues.create({ venue: `${t.prefix} Gone Hall`, city: 'Lyon' } as never);
    const ev = await c.events.create({ ...eventBody(`${t.prefix} at the gone hall`, 13), venue: venue.id } as never);
    t.track('events', ev.id);
    const deleted = await wp.request<{ deleted?: boolean }>({ method: 'DELETE', path: `/tribe_venue/${venue.id}`, query: { force: 'true' } });
    expect(deleted.deleted).toBe(true);

    const read = await caught(() => c.venues.get(venue.id));
    expect(goneAs(read)).toBe('deleted');
    const write = await caught(() => c.events.create({ ...eventBody(`${t.prefix} names the gone hall`, 14), venue: venue.id } as never));
    expect((write as { status?: number }).status).toBe(400);
    expect((write as { code?: string }).code).toBe('rest_invalid_param');
    expect((write as Error).message).toMatch(/venue/);
  });
});
