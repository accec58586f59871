import type { Ctx, Endpoint, Reply } from './context.ts';
import { ApiError, eventNotFound, inTrash, invalidParams, notAccessible } from './errors.ts';
import { EVENT_WRITE_ARGS, createEvent, invalidEventWrite, updateEvent } from './event-write.ts';
import { listEvents, validateEventList } from './event-list.ts';
import { isPhpNonEmptyString, toId } from './params.ts';
import { trash } from './posts.ts';
import type { EventRecord } from './records.ts';
import { renderEvent } from './shapes.ts';

/**
 * The event routes. 6.17.2 and 6.17.1 differ on unknown ids: 6.17.2 answers 404
 * `rest-event-not-found` from the handler (so after the permission check), 6.17.1 refuses the `id`
 * argument itself (400 `rest_invalid_param`, before the permission check).
 */

function lookupError(ctx: Ctx, id: number): ApiError | undefined {
  const ev = ctx.store.events.get(id);
  if (ev && ev.lang === ctx.lang) return undefined;
  const otherKind = !ev && ctx.store.kindOf(id) !== undefined;
  if (ctx.site.version === '6.17.1') return invalidParams(['id']);
  if (otherKind) return new ApiError(400, 'rest-invalid-event-id', 'The specified ID is not a valid event.');
  return eventNotFound(id);
}

function byId(ctx: Ctx): EventRecord {
  const id = toId(ctx.path.id) ?? 0;
  const err = lookupError(ctx, id);
  if (err) throw err;
  return ctx.store.events.get(id) as EventRecord;
}

function bySlug(ctx: Ctx): EventRecord | undefined {
  return ctx.store.findBySlug('event', ctx.lang, ctx.path.slug);
}

/** 6.17.1 validates the id as an argument, before the permission check. */
/** `/events/<id>` (any verb): the id, and `password`, which TEC validates with `is_string` (so `?password=` is a 400). */
function idArgCheck(ctx: Ctx): string[] {
  const bad = ctx.site.version === '6.17.1' && lookupError(ctx, toId(ctx.path.id) ?? 0) ? ['id'] : [];
  if (ctx.params.password !== undefined && !isPhpNonEmptyString(ctx.params.password)) bad.push('password');
  return bad;
}

function readable(ctx: Ctx, ev: EventRecord): void {
  if (ev.status === 'trash') {
    if (ctx.site.version === '6.17.2') throw new ApiError(403, 'event-no-longer-available', 'This event is no longer available');
    if (!ctx.authed) throw notAccessible('event');
    return;
  }
  if (ev.status !== 'publish' && !ctx.authed) throw notAccessible('event');
}

function read(ctx: Ctx, ev: EventRecord): Reply {
  readable(ctx, ev);
  return { status: 200, body: renderEvent(ctx.store, ev, ctx.rc, true) };
}

function remove(ctx: Ctx, ev: EventRecord): Reply {
  if (ev.status === 'trash') throw inTrash('event');
  trash(ctx.store, ctx.site, ev);
  return { status: 200, body: renderEvent(ctx.store, ev, ctx.rc) };
}

const writeArgs: Endpoint['args'] = Object.fromEntries(EVENT_WRITE_ARGS.map((a) => [a, {}]));
const idArgs = { id: { required: true, type: 'integer' }, password: { type: 'string' } };
const slugArgs = { slug: { required: true, type: 'string' } };

function invalid(names: string[]): ApiError | undefined {
  return names.length ? invalidParams(names) : undefined;
}

export const eventEndpoints: Record<string, Endpoint> = {
  list: {
    auth: false,
    args: {
      page: { type: 'integer', default: 1 }, per_page: { type: 'integer' }, start_date: {}, end_date: {}, starts_before: {},
      starts_after: {}, ends_before: {}, ends_after: {}, strict_dates: { default: false }, search: { type: 'string' },
      categories: { type: 'array' }, tags: { type: 'array' }, venue: { type: 'array' }, organizer: { type: 'array' },
      featured: { type: 'boolean' }, status: { type: 'string' }, geoloc: { type: 'boolean' }, geoloc_lat: { type: 'number' },
      geoloc_lng: { type: 'number' }, include: { type: 'array' }, post_parent: { type: 'integer' }, ticketed: { type: 'boolean' },
    },
    validate: validateEventList,
    handle: listEvents,
  },
  create: {
    auth: true,
    required: ['title', 'start_date', 'end_date'],
    args: { ...writeArgs, title: { required: true, type: 'string' }, start_date: { required: true, type: 'string' }, end_date: { required: true, type: 'string' } },
    validate: (ctx) => invalid(invalidEventWrite(ctx)),
    handle: (ctx) => ({ status: 201, body: renderEvent(ctx.store, createEvent(ctx), ctx.rc) }),
  },
  read: {
    auth: false,
    args: idArgs,
    validate: (ctx) => invalid(idArgCheck(ctx)),
    handle: (ctx) => read(ctx, byId(ctx)),
  },
  update: {
    auth: true,
    args: { ...idArgs, ...writeArgs },
    validate: (ctx) => invalid([...idArgCheck(ctx), ...invalidEventWrite(ctx)]),
    handle: (ctx) => ({ status: 200, body: renderEvent(ctx.store, updateEvent(ctx, byId(ctx)), ctx.rc) }),
  },
  remove: {
    auth: true,
    args: idArgs,
    validate: (ctx) => invalid(idArgCheck(ctx)),
    handle: (ctx) => remove(ctx, byId(ctx)),
  },
  readBySlug: {
    auth: false,
    args: slugArgs,
    validate: (ctx) => invalid(bySlug(ctx) ? [] : ['slug']),
    handle: (ctx) => read(ctx, bySlug(ctx) as EventRecord),
  },
  updateBySlug: {
    auth: true,
    args: { ...slugArgs, ...writeArgs },
    // The slug is NOT validated as an argument here, so a miss is answered after the permission
    // check, and never by creating anything.
    validate: (ctx) => invalid(invalidEventWrite(ctx)),
    handle: (ctx) => {
      const ev = bySlug(ctx);
      if (!ev) {
        if (ctx.site.version === '6.17.1') {
          return { status: 200, body: { errors: { 'event-not-found': ['The requested post ID does not exist or is not an event'] }, error_data: [] } };
        }
        throw eventNotFound(0);
      }
      return { status: 200, body: renderEvent(ctx.store, updateEvent(ctx, ev), ctx.rc) };
    },
  },
  removeBySlug: {
    auth: true,
    args: slugArgs,
    validate: (ctx) => invalid(bySlug(ctx) ? [] : ['slug']),
    handle: (ctx) => remove(ctx, bySlug(ctx) as EventRecord),
  },
};
