/**
 * The text an export prints: one line per feed file. Shared by `calsync export ics` and
 * `calsync enqueue export-ics --wait`, which loads no more than this (the CLI loads only the
 * modules of the command it runs).
 */
export interface ExportSummaryInput {
  files: ReadonlyArray<{ lang: string; events: number; path: string; changed: boolean }>;
}

export function isExportSummary(result: unknown): result is ExportSummaryInput {
  return typeof result === 'object' && result !== null && Array.isArray((result as { files?: unknown }).files);
}

export function exportSummary(result: ExportSummaryInput): string {
  return result.files.map((f) => `${f.lang}: ${f.events} events → ${f.path}${f.changed ? '' : ' (unchanged)'}`).join('\n');
}
