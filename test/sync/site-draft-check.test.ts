import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChainedEventDraft, EventDraft, TERM_CHAIN_DEPTH, type TermDraft } from '../../src/model/draft.ts';
import { checkChainedEventDraft } from '../../src/model/draft-check.ts';

// A synced event's draft is checked by a compiled copy of EventDraft whose categories carry their
// parent chains unrolled (ChainedEventDraft, src/model/draft.ts) before the schema itself: whatever
// it answers must be what EventDraft answers — same verdict, same output, same issues.

function sameAsSchema(candidate: Record<string, unknown>): void {
  const got = checkChainedEventDraft(structuredClone(candidate));
  const want = EventDraft.safeParse(structuredClone(candidate));
  expect(got.success, JSON.stringify(candidate)).toBe(want.success);
  if (want.success) expect(got.data).toStrictEqual(want.data);
  else expect(got.error?.issues).toStrictEqual(want.error.issues);
}

/** A category with `parents` parents above it, each a full draft (as src/sources/site/normalize.ts termDraft builds). */
function chain(parents: number): TermDraft {
  let t: TermDraft = { name: `Level ${parents}`, slug: `level-${parents}`, description: '' };
  for (let i = parents - 1; i >= 0; i--) t = { name: `Level ${i}`, slug: `level-${i}`, description: '', parent: t };
  return t;
}

const EVENT = {
  identity: 'src:event:12',
  slug: 'src-jazz-night',
  title: 'Jazz Night',
  status: 'publish',
  timezone: 'Europe/Paris',
  all_day: false,
  start_date: '2027-03-14 20:00:00',
  end_date: '2027-03-14 23:00:00',
  categories: [chain(2), { name: 'Sport', slug: 'sport', description: '' }],
  tags: [{ name: 'free', slug: 'free', description: '' }],
  venue: { identity: 'src:venue:3', slug: 'src-hall', venue: 'Hall', city: 'Paris', show_map: true },
  organizers: [{ identity: 'src:organizer:4', slug: 'src-club', organizer: 'Jazz Club', email: 'club@example.org' }],
  sourceModified: '2027-01-01 10:00:00',
  origin: { source: 'src', ref: '12' },
};

describe('a synced event draft is checked as EventDraft checks it', () => {
  it('accepts categories with parent chains up to the depth the sync builds, with the schema output', () => {
    sameAsSchema(EVENT);
    sameAsSchema({ ...EVENT, categories: [chain(TERM_CHAIN_DEPTH)] });
    sameAsSchema({ ...EVENT, categories: [], tags: [], organizers: [] });
  });

  it('leaves to the schema what the compiled copy does not take: a longer chain, a key the schema drops', () => {
    sameAsSchema({ ...EVENT, categories: [chain(TERM_CHAIN_DEPTH + 2)] });
    sameAsSchema({ ...EVENT, categories: [{ ...chain(1), colour: 'blue' }] });
  });

  it('refuses what the schema refuses, with its issues', () => {
    sameAsSchema({ ...EVENT, end_date: '2027-03-14 19:00:00' });
    sameAsSchema({ ...EVENT, title: '' });
    sameAsSchema({ ...EVENT, categories: [{ name: 'Jazz', parent: { name: '' } }] });
    sameAsSchema({ ...EVENT, start_date: '2027-03-14T20:00:00Z' });
  });

  it('is compiled, not silently left to the runtime parser, and takes the drafts the sync builds', () => {
    expect(() => z.compile(ChainedEventDraft, { strict: true })).not.toThrow();
    const compiled = z.compile(ChainedEventDraft);
    for (const categories of [EVENT.categories, [chain(TERM_CHAIN_DEPTH)]]) expect(compiled.safeParse(structuredClone({ ...EVENT, categories })).success).toBe(true);
  });
});
