import { describe, expect, it } from 'vitest';
import { eventBody, useTarget, type Target } from './harness.ts';

/**
 * What SiteWriter.takeSlug relies on (src/write/writer.ts): a create whose slug a record the
 * listings do not show holds comes back as `<slug>-2`; once that record is in the trash (where its
 * slug becomes `<slug>__trashed`), an update by id with the slug gives the new record the slug.
 * Runs against the sandbox and, with CALSYNC_CONTRACT_URL, a real site.
 */
describe('a slug held by a record the listings do not show, taken over', () => {
  let t: Target;
  useTarget((target) => (t = target));

  it('the create gets <slug>-2; after the holder is trashed, an update by id takes the slug', async () => {
    const c = t.client();
    const slug = `${t.prefix}-held`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
    const holder = await c.events.create({ ...eventBody(`${t.prefix} holder`, 15), slug, hide_from_listings: true } as never);
    t.track('events', holder.id);
    expect(holder.slug).toBe(slug);
    const second = await c.events.create({ ...eventBody(`${t.prefix} second`, 15), slug } as never).catch((err: { record?: { id: number; slug: string } }) => err.record!);
    t.track('events', second.id);
    expect(second.slug).toBe(`${slug}-2`);

    await c.events.delete(holder.id);
    const moved = await c.events.update(second.id, { ...eventBody(`${t.prefix} second`, 15), slug } as never);
    expect(moved.slug).toBe(slug);
    expect((await c.events.getBySlug(slug)).id).toBe(second.id);
  });
});
