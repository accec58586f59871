/**
 * ICS subscription export: a site's date window per language → `<dir>/<name>.<lang>.ics`
 * (deterministic bytes, atomic writes) and the HTTP handler that serves them with validators.
 * See run.ts for the data path, window-query.ts for the window rule, render.ts for the iCalendar
 * choices (UID, SEQUENCE, DTSTAMP, time zones, organizers) and feed-server.ts for HTTP.
 */
export {
  runIcsExport,
  collectFeed,
  exportIcsText,
  type ExportParams,
  type ExportResult,
  type ExportFile,
  type ExportContext,
  type ExportProgress,
  type SkippedEvent,
  type CollectedFeed,
  type CollectOptions,
} from '../runs/export-ics.ts';
export {
  renderIcs,
  renderEvent,
  icsParts,
  compareRendered,
  durationSeconds,
  venueLocation,
  venueGeo,
  ZoneUsage,
  DEFAULT_REFRESH_INTERVAL,
  type RenderOptions,
  type RenderedEvent,
} from './render.ts';
export { windowQuery, inWindow, type ExportFilters, type ExportWindow } from './window-query.ts';
export { eventTiming, type EventTiming } from './timing.ts';
export { vtimezone, zoneTransitions, type VtimezoneResult, type ZoneRange } from './vtimezone.ts';
export { createFeedHandler, feedLinks, type FeedHandler, type FeedHandlerOptions, type FeedLinks } from './feed-server.ts';
export { writeArtifact, etagOf, hashFile, feedFileName, parseFeedFileName, FEED_NAME, type ArtifactWrite } from './artifacts.ts';
export { plainText, plainTitle } from './text.ts';
export {
  ExportError,
  ExportParamsError,
  ExportAbortedError,
  ExportFetchError,
  ArtifactWriteError,
  EventRenderError,
} from './errors.ts';
