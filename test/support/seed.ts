import type { CalendarClient, EventRecord } from '../../src/api/index.ts';
import type { Language } from '../../src/model/languages.ts';
import { mapConcurrent } from '../../src/util/pool.ts';

export interface Seeded {
  events: EventRecord[];
  categories: { id: number; slug: string; name: string; parent?: number }[];
}

const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'UTC'];

/** A varied, deterministic site: nested categories, tags, venues, organizers and `perLang` events per language. */
export async function seedSite(client: CalendarClient, langs: Language[], perLang: number, year = 2027): Promise<Record<string, Seeded>> {
  const out: Record<string, Seeded> = {};
  for (const lang of langs) {
    const parent = await client.categories.create({ name: `Culture ${lang}`, description: 'All culture' }, { lang });
    const music = await client.categories.create({ name: `Music ${lang}`, parent: parent.id }, { lang });
    const jazz = await client.categories.create({ name: `Jazz ${lang}`, parent: music.id }, { lang });
    const sport = await client.categories.create({ name: `Sport ${lang}` }, { lang });
    const cats = [parent, music, jazz, sport];
    const tags = [await client.tags.create({ name: `family-${lang}` }, { lang }), await client.tags.create({ name: `free-${lang}` }, { lang })];
    const venues = await mapConcurrent([0, 1, 2], 3, (i) => client.venues.create({ venue: `Hall ${i} ${lang}`, address: `${i} Main St`, city: 'Springfield', zip: `1000${i}`, country: 'Germany', show_map: 'true', show_map_link: 'false' } as never, { lang }));
    const organizers = await mapConcurrent([0, 1], 2, (i) => client.organizers.create({ organizer: `Org ${i} ${lang}`, email: `org${i}-${lang}@example.org`, phone: `+49 30 ${i}` } as never, { lang }));
    const events = await mapConcurrent(Array.from({ length: perLang }, (_, i) => i), 16, async (i) => {
      // From 2 January: on a UTC site (the sandbox's default) a window from 1 January lists UTC days
      // (src/model/run-window.ts), and 1 January in Berlin or Tokyo starts on 31 December in UTC.
      const day = 2 + (i % 300);
      const d = new Date(Date.UTC(year, 0, day));
      const date = d.toISOString().slice(0, 10);
      const allDay = i % 10 === 0;
      return client.events.create(
        {
          title: `Event ${i} ${lang}`,
          description: `<p>Description of event ${i}</p>`,
          start_date: `${date} ${allDay ? '00:00:00' : `${String(8 + (i % 10)).padStart(2, '0')}:30:00`}`,
          end_date: `${date} ${allDay ? '23:59:59' : `${String(9 + (i % 10)).padStart(2, '0')}:45:00`}`,
          timezone: ZONES[i % ZONES.length]!,
          all_day: allDay,
          slug: `event-${i}-${lang}`,
          categories: [cats[i % cats.length]!.id],
          tags: i % 3 === 0 ? [tags[i % 2]!.id] : [],
          venue: venues[i % 3]!.id,
          organizer: i % 4 === 0 ? [organizers[0]!.id, organizers[1]!.id] : [organizers[i % 2]!.id],
          featured: i % 7 === 0,
          cost: i % 5 === 0 ? '15' : '',
          website: i % 6 === 0 ? `https://example.org/e/${i}` : '',
        } as never,
        { lang },
      );
    });
    out[lang] = { events, categories: cats.map((c) => ({ id: c.id, slug: c.slug, name: c.name, parent: c.parent })) };
  }
  return out;
}
