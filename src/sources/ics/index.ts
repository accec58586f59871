/**
 * ICS import: bytes -> EventDrafts (one per occurrence in a window) or failure items.
 *
 * Pipeline (one module each): decode.ts (encoding sniffing) -> the iCalendar grammar in src/ical/
 * (lines.ts unfolding, contentline.ts, parse.ts tolerant component tree, values.ts, text.ts, rrule.ts,
 * vtimezone.ts; the export reads VTIMEZONEs with the same modules) -> event.ts (typed VEVENT fields) ->
 * zones.ts (TZID -> IANA) -> expand.ts (recurrence over the window) -> normalize.ts (drafts), with
 * venue.ts, organizer.ts and text.ts for the content fields.
 *
 * Parser choice: our own tokenizer and recurrence engine, not node-ical or ical.js. node-ical keys events
 * by UID (a second VEVENT with the same UID and no RECURRENCE-ID overwrites the first), throws on a
 * duplicate DTSTART, maps Microsoft "Customized Time Zone" to the HOST zone, expands no RDATE and knows
 * no RANGE=THISANDFUTURE; ical.js treats unknown TZIDs as floating and is O(n^2) without manual grouping;
 * neither reports line numbers nor lets a caller bound the work of a runaway RRULE (both loop internally
 * until the next match). Time zones come from the runtime's tzdata through Intl (src/model/timezones.ts).
 */
export { decodeIcs, type DecodedIcs } from './decode.ts';
export { normalizeIcs, type IcsNormalizeOptions, type IcsNormalizeResult, type IcsSummary } from './normalize.ts';
