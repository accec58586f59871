import type { EventDraft, Normalized, OrganizerDraft, VenueDraft } from '../../src/model/draft.ts';

/** Small drafts for writer tests: venue `name` in Lyon, organizer `name`. */
export const hall = (name: string): VenueDraft => ({ identity: name, venue: name, city: 'Lyon' });
export const org = (name: string): OrganizerDraft => ({ identity: name, organizer: name });

/** Event `i` (slug `ev-<i>`, a June 2025 day, one of two halls, one organizer, one category), with `over` on top. */
export function eventItem(i: number, over: Partial<EventDraft> = {}): Normalized<EventDraft> {
  const d = `2025-06-${String(1 + (i % 28)).padStart(2, '0')}`;
  return {
    ok: true,
    draft: {
      identity: `ev-${i}`, title: `Event ${i}`, description: 'Text', timezone: 'Europe/Berlin', all_day: false, start_date: `${d} 10:00:00`, end_date: `${d} 11:00:00`,
      categories: [{ name: 'Music' }], tags: [], venue: hall(i % 2 ? 'North Hall' : 'South Hall'), organizers: [org('Alpha Org')], cancelled: false,
      slug: `ev-${i}`, origin: { source: 'test' }, ...over,
    },
  };
}
