import { createRequire } from 'node:module';

/**
 * html-to-text ships no type declarations and the project has no `@types` for it. Rather than
 * declaring an ambient module (global to the whole program, and easy to collide with another
 * module's copy), it is loaded here through `require` and typed by the few members the export uses.
 */

const require = createRequire(import.meta.url);

export interface HtmlToTextSelector {
  selector: string;
  format?: string;
  options?: Record<string, unknown>;
}

export interface HtmlToTextOptions {
  wordwrap?: number | false | null;
  preserveNewlines?: boolean;
  selectors?: HtmlToTextSelector[];
  decodeEntities?: boolean;
  baseElements?: { selectors?: string[]; returnDomByDefault?: boolean };
}

export const compileHtmlToText = (require('html-to-text') as {
  compile(options?: HtmlToTextOptions): (html: string) => string;
}).compile;
