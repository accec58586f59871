import { describe, expect, it } from 'vitest';
import { goneAs } from '../../src/api/index.ts';
import { caught, eventBody, useTarget, type Target } from './harness.ts';

/**
 * What a read of an event by id answers once the site no longer has it, which is how a run tells a
 * site that lost its ledger's records (reset, restored from an older backup) from one where a user
 * trashed some (src/write/ledger-on-site.ts): deleted for good, an unknown id (gone); in the trash,
 * the record, or an answer the client takes as trashed (there); an id holding a venue, an unknown
 * event (gone). Runs against the sandbox and, with CALSYNC_CONTRACT_URL, a real site.
 */
describe('reading an event by id that the site no longer has as it was', () => {
  let t: Target;
  useTarget((target) => (t = target));

  it('deleted for good: gone; trashed: there (the record in the trash, or a trashed answer); a venue\'s id: gone', async () => {
    const c = t.client();
    const wp = t.client({ namespace: 'wp/v2' });
    const deleted = await c.events.create(eventBody(`${t.prefix} deleted for good`, 15) as never);
    const trashed = await c.events.create(eventBody(`${t.prefix} trashed`, 16) as never);
    t.track('events', trashed.id);
    const venue = await c.venues.create({ venue: `${t.prefix} Not An Event Hall`, city: 'Lyon' } as never);
    t.track('venues', venue.id);

    await wp.request({ method: 'DELETE', path: `/tribe_events/${deleted.id}`, query: { force: 'true' } });
    expect(goneAs(await caught(() => c.events.get(deleted.id)))).toBe('deleted');

    await c.events.delete(trashed.id);
    const read = await c.events.get(trashed.id).then((r) => r, (err: unknown) => err);
    if (read instanceof Error) expect(goneAs(read)).toBe('trashed');
    else expect(read).toMatchObject({ id: trashed.id, slug: trashed.slug });

    expect(goneAs(await caught(() => c.events.get(venue.id)))).toBe('deleted');
  });
});
