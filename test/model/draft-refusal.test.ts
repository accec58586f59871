import { describe, expect, it } from 'vitest';
import { EventDraft } from '../../src/model/draft.ts';
import { eventDraftRefusal } from '../../src/model/draft-check.ts';
import { prng } from '../../src/util/random.ts';

// eventDraftRefusal (src/model/draft-check.ts) asks the compiled copy to validate only; its verdict
// and a refusal's issues must be the schema's own for every candidate.

const EVENT = {
  identity: 'uid-1',
  title: 'Jazz Night',
  status: 'publish',
  timezone: 'Europe/Berlin',
  all_day: false,
  start_date: '2025-03-14 20:00:00',
  end_date: '2025-03-14 23:00:00',
  website: 'https://example.org/e/1',
  categories: [{ name: 'Music' }],
  tags: [],
  venue: { identity: 'salle', venue: 'Salle', address: 'Rue 1', geo: { lat: 1, lng: 2 } },
  organizers: [{ identity: 'a@b.org', organizer: 'A', email: 'a@b.org' }],
  cancelled: false,
  origin: { source: 'feed.ics', line: 12, uid: 'uid-1', occurrence: undefined },
};

const BREAKS: Record<string, unknown>[] = [
  { end_date: '2025-03-14 19:00:00' },
  { start_date: '2025-03-14T20:00:00' },
  { start_date: '10000-01-01 00:30:00', end_date: '10000-01-01 01:30:00' },
  { title: '' },
  { title: 7 },
  { timezone: undefined },
  { all_day: 'no' },
  { website: 'not a url' },
  { categories: [{ name: '' }] },
  { categories: [{ name: 'Jazz', parent: { name: 'Music', parent: 'Arts' } }] },
  { venue: { identity: 'x', venue: '' } },
  { venue: { identity: 'x', venue: 'X', geo: { lat: 'north', lng: 2 } } },
  { organizers: [{ identity: '', organizer: 'A' }] },
  { origin: { source: 'feed.ics', line: 'twelve' } },
  { identity: undefined },
  { extra: 'dropped' },
  { description: '<p>Hi</p>', image: 'https://example.org/i.png', sourceModified: '2025-01-01T00:00:00Z' },
];

function sameAsSchema(candidate: Record<string, unknown>): void {
  const want = EventDraft.safeParse(structuredClone(candidate));
  const got = eventDraftRefusal(structuredClone(candidate));
  expect(got === undefined, JSON.stringify(candidate)).toBe(want.success);
  if (!want.success) expect(got?.issues).toStrictEqual(want.error.issues);
}

describe('eventDraftRefusal agrees with EventDraft', () => {
  it('on a valid draft and each single break of it', () => {
    sameAsSchema(EVENT);
    for (const b of BREAKS) sameAsSchema({ ...EVENT, ...b });
  });

  it('on random combinations of breaks', () => {
    const r = prng(16);
    for (let i = 0; i < 500; i++) {
      let c: Record<string, unknown> = { ...EVENT };
      for (let k = Math.floor(r() * 4); k > 0; k--) c = { ...c, ...BREAKS[Math.floor(r() * BREAKS.length)] };
      sameAsSchema(c);
    }
  });
});
