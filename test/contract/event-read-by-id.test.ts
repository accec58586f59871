import { describe, expect, it } from 'vitest';
import { goneAs } from '../../src/api/index.ts';
import { MemoryLedger } from '../../src/write/ledger.ts';
import { ledgerOnSite } from '../../src/write/ledger-on-site.ts';
import { caught, eventBody, useTarget, type Target } from './harness.ts';

/**
 * What a read of an event by id answers once the site no longer has it as it was, and what the
 * check of a ledger against the site (src/write/ledger-on-site.ts) makes of it: deleted for good,
 * an unknown id (gone); in the trash, a trashed answer (the sandbox, 6.17.2) or the record with its
 * slug turned `<slug>__trashed` (6.17.1), there either way; an id holding a venue, an unknown event
 * (gone). Runs against the sandbox and, with CALSYNC_CONTRACT_URL, a real site.
 */
describe('reading an event by id that the site no longer has as it was', () => {
  let t: Target;
  useTarget((target) => (t = target));

  /** A ledger holding one entry: the record calsync wrote under this slug and id. */
  const ledgerOf = async (slug: string, id: number) => {
    const ledger = new MemoryLedger();
    await ledger.set('events', slug, { fp: 'x', id, at: new Date().toISOString() });
    return ledger;
  };

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
    expect((await ledgerOnSite(await ledgerOf(deleted.slug!, deleted.id), 'events', c, 'en')).state).toBe('forgotten');

    await c.events.delete(trashed.id);
    const read = await c.events.get(trashed.id).then((r) => r, (err: unknown) => err);
    if (read instanceof Error) expect(goneAs(read)).toBe('trashed');
    else expect(read).toMatchObject({ id: trashed.id, status: 'trash', slug: `${trashed.slug}__trashed` });
    expect((await ledgerOnSite(await ledgerOf(trashed.slug!, trashed.id), 'events', c, 'en')).state).toBe('held');

    expect(goneAs(await caught(() => c.events.get(venue.id)))).toBe('deleted');
    expect((await ledgerOnSite(await ledgerOf(`${t.prefix}-hall`, venue.id), 'events', c, 'en')).state).toBe('forgotten');
  });
});
