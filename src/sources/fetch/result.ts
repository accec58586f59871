/** What a fetch returns; `url`/`finalUrl` never carry credentials. */
export interface FetchResult {
  /** The URL fetched, after webcal:// mapping (a file: URL for local files). */
  url: string;
  /** Where the content came from after redirects. */
  finalUrl: string;
  status: number;
  /** True on 304 (or an unchanged local file): nothing to import, `body` is absent. */
  notModified: boolean;
  /** Decoded body; absent when `notModified`. */
  body?: Buffer;
  /** Validators to pass as `conditional` next run. */
  etag?: string;
  lastModified?: string;
  contentType?: string;
  /** Decoded body length (0 when not modified). */
  bytes: number;
}
