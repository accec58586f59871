import type { Executor } from '../executor.ts';
import type { z } from 'zod';
import { EventCreate, EventRecord, EventUpdate, EventUpdateById, type EventAck } from '../schemas/events.ts';
import { EventListQuery } from '../schemas/lists.ts';
import { SluggedResource, type RecordOptions } from './slugged.ts';

/** `password` opens password-protected events on by-id reads and deletes (query parameter). */
export interface EventRecordOptions {
  password?: string;
}

/**
 * `/events`. List queries should always carry an explicit window (`start_date`/`end_date` or
 * `starts_*`/`ends_*`): the site's defaults hide past and ongoing events.
 */
export class EventsResource<R extends EventAck = EventRecord> extends SluggedResource<R, EventCreate, EventUpdate, EventUpdateById, EventListQuery, EventRecordOptions> {
  /** `record`: the schema answers are parsed with (EventAck for CalendarClient.eventWrites), and the keys it reads when not all. */
  constructor(exec: Executor, record: z.ZodType<R> = EventRecord as unknown as z.ZodType<R>, answerFields?: readonly string[]) {
    super(exec, {
      name: 'events',
      record,
      create: EventCreate,
      update: EventUpdate,
      updateById: EventUpdateById,
      listQuery: EventListQuery,
      slugInUpdateBody: false,
      answerFields,
    });
  }

  protected override recordQuery(opts: RecordOptions<EventRecordOptions> | undefined): Array<[string, string]> {
    return opts?.password !== undefined ? [['password', opts.password]] : [];
  }
}
