import { describe, expect, it } from 'vitest';
import { formatDay, formatLocalIso, formatUtcIso, formatWall } from '../../src/model/timezones.ts';
import { ics, run } from './helpers.ts';

/**
 * A big feed's drafts are mostly the same few organizers, category lists and places: those parts are
 * one object per distinct value, shared by the drafts (and by the clone the parser thread sends back),
 * and the wall-time strings are built flat. Neither may change what a draft says.
 */
const event = (uid: string, day: string, extra = '') =>
  `UID:${uid}\nSUMMARY:Talk ${uid}\nDTSTART:${day}T180000Z\nDTEND:${day}T190000Z\nORGANIZER;CN=Ana Diaz:mailto:ana@example.org\nCATEGORIES:Science,Talks${extra}`;

describe('drafts share their immutable parts', () => {
  it('two VEVENTs with the same organizer and categories share one organizer list and one term list', () => {
    const { drafts } = run(ics(event('a', '20240601'), event('b', '20240602'), event('c', '20240603', '\nCATEGORIES:Kids')));
    expect(drafts).toHaveLength(3);
    const [a, b, c] = drafts;
    expect(a.organizers).toEqual([{ identity: 'ana@example.org', organizer: 'Ana Diaz', email: 'ana@example.org' }]);
    expect(b.organizers).toBe(a.organizers);
    expect(a.categories).toEqual([{ name: 'Science' }, { name: 'Talks' }]);
    expect(b.categories).toBe(a.categories);
    expect(c.categories).toEqual([{ name: 'Science' }, { name: 'Talks' }, { name: 'Kids' }]);
    expect(a.tags).toEqual([]);
    expect(b.tags).toBe(a.tags);
  });

  it('a place with GEO is one venue per distinct LOCATION, shared, however the events interleave', () => {
    const at = (uid: string, day: string, loc: string, geo: string) => `UID:${uid}\nSUMMARY:x\nDTSTART:${day}T180000Z\nLOCATION:${loc}\nGEO:${geo}`;
    const { drafts } = run(ics(at('a', '20240601', 'Hall, Main St 1', '48.1;11.5'), at('b', '20240602', 'Club', '48.1;11.5'), at('c', '20240603', 'Hall, Main St 1', '48.1;11.5'), at('d', '20240604', 'Hall, Main St 1', '48.2;11.5')));
    const [a, b, c, d] = drafts;
    expect(a.venue).toEqual({ identity: 'hall, main st 1', venue: 'Hall', address: 'Main St 1', geo: { lat: 48.1, lng: 11.5 } });
    expect(c.venue).toBe(a.venue);
    expect(b.venue).toEqual({ identity: 'club', venue: 'Club', geo: { lat: 48.1, lng: 11.5 } });
    expect(d.venue).toEqual({ ...a.venue, geo: { lat: 48.2, lng: 11.5 } });
  });

  it('ORGANIZERs with the same value are read apart when their CN differs, absent and empty included', () => {
    // Confluence's parameters after the colon: without a CN of its own, the one in the value names it.
    const org = (uid: string, line: string) => `UID:${uid}\nSUMMARY:x\nDTSTART:20240601T180000Z\n${line}`;
    const value = 'X-K=1;CN=Bo:mailto:bo@example.org';
    const { drafts } = run(ics(org('a', `ORGANIZER:${value}`), org('b', `ORGANIZER;CN=:${value}`), org('c', `ORGANIZER;CN=Ana:${value}`), org('d', `ORGANIZER:${value}`)));
    expect(drafts.map((d) => d.organizers[0]?.organizer)).toEqual(['Bo', 'bo', 'Ana', 'Bo']);
    expect(drafts[3].organizers).toBe(drafts[0].organizers);
  });

  it('categoriesAs tags: the same lists, as tags, and categories empty', () => {
    const { drafts } = run(ics(event('a', '20240601'), event('b', '20240602')), { categoriesAs: 'tags' });
    expect(drafts[0].tags).toEqual([{ name: 'Science' }, { name: 'Talks' }]);
    expect(drafts[1].tags).toBe(drafts[0].tags);
    expect(drafts[0].categories).toEqual([]);
  });
});

describe('wall-time strings', () => {
  const p2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
  const reference = (sec: number) => {
    const days = Math.floor(sec / 86_400);
    const r = sec - days * 86_400;
    return `${formatDay(days)} ${p2(Math.floor(r / 3600))}:${p2(Math.floor((r % 3600) / 60))}:${p2(r % 60)}`;
  };

  it('are what the template formatting gave, including years outside 0..9999 and fractional seconds', () => {
    const secs = [0, -1, 59, 86_399, 86_400, 1_717_264_800, -62_167_219_200, -62_167_219_201, 253_402_300_799, 253_402_300_800, 1.5, -86_400.25];
    for (let i = 0; i < 2000; i++) secs.push(Math.floor(Math.sin(i) * 4e10));
    for (const s of secs) {
      expect(formatWall(s)).toBe(reference(s));
      expect(formatLocalIso(s)).toBe(reference(s).replace(' ', 'T'));
      expect(formatUtcIso(s)).toBe(`${reference(s).replace(' ', 'T')}Z`);
    }
  });
});
