import { describe, expect, it } from 'vitest';
import { Id, Slug, WALL_TIME, WallTime } from '../../src/api/schemas/common.ts';
import { idSegment, slugSegment } from '../../src/api/validate.ts';
import { RequestValidationError } from '../../src/api/errors/index.ts';

/**
 * src/api/validate.ts accepts valid slugs and ids without running zod (every call checks one), and
 * the event body refine tests the WallTime regex directly. These hold the shortcuts to the schemas:
 * the same values accepted, the same refused (with the schema's RequestValidationError).
 */

const accepted = (f: () => unknown): boolean => {
  try {
    f();
    return true;
  } catch (err) {
    expect(err).toBeInstanceOf(RequestValidationError);
    return false;
  }
};

describe('request validation shortcuts agree with the schemas', () => {
  const slugs = ['', 'a', 'a b', 'a/b', 'a?b', 'a#b', 'x'.repeat(200), 'x'.repeat(201), 'ü-é', 'a\tb', 'a\nb', 'a\u00a0b', 'a\u2028b', 'a\ufeffb', 'a\u3000b', '%2F', 'a__trashed'];
  it.each(slugs.map((s) => [JSON.stringify(s), s]))('slug %s', (_name, slug) => {
    expect(accepted(() => slugSegment(slug, 'GET', '/events/by-slug/:slug'))).toBe(Slug.safeParse(slug).success);
  });

  it.each([0, 1, -1, 1.5, 2 ** 53 - 1, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, 1e300])('id %s', (id) => {
    expect(accepted(() => idSegment(id, 'GET', '/events/:id'))).toBe(Id.safeParse(id).success);
  });

  it('a valid slug and id come out as the path segments they were', () => {
    expect(slugSegment('café-night', 'GET', '/r')).toBe(encodeURIComponent('café-night'));
    expect(idSegment(42, 'GET', '/r')).toBe('42');
  });

  it('WALL_TIME is the pattern WallTime checks', () => {
    for (const v of ['2031-03-02 10:00:00', '2031-03-02T10:00:00', '2031-03-02 10:00', ' 2031-03-02 10:00:00', '2031-03-02 10:00:00Z']) {
      expect(WALL_TIME.test(v)).toBe(WallTime.safeParse(v).success);
    }
  });
});
