import type { OrganizerDraft } from '../../model/draft.ts';
import { parseContentLine, type Prop } from '../../ical/contentline.ts';
import { unescapeText } from '../../ical/text.ts';

/**
 * ORGANIZER -> organizer draft: name from CN (quotes, 'single quotes' and escapes removed), else the
 * e-mail's local part; e-mail from a `mailto:` value (spaces that folding left inside are removed).
 * Identity: the lower-cased e-mail, else the lower-cased name, so the same person dedupes across events.
 *
 * Confluence writes the parameters after a colon (`ORGANIZER:X-KEY=..;CN=Name:mailto:a@b`); such a value
 * is re-parsed as if the colon were a semicolon.
 */
export function organizerFromProp(p: Prop | undefined): Omit<OrganizerDraft, 'status'> | undefined {
  if (!p) return undefined;
  let params = p.params;
  let value = p.value.trim();
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value) || /^x-[^:]*=/i.test(value)) {
    if (/[;:]mailto:/i.test(value) || /(^|;)CN=/i.test(value)) {
      const re = parseContentLine(`ORGANIZER;${value}`, p.line);
      if (re) {
        params = { ...re.params, ...params };
        value = re.value.trim();
      }
    }
  }
  let email: string | undefined;
  const m = /^mailto:(.*)$/i.exec(value);
  const addr = (m ? m[1] : value).replace(/\s+/g, '');
  if (/^[^@\s:/]+@[^@\s]+$/.test(addr)) email = addr;
  let name = params.CN !== undefined ? unescapeText(params.CN).trim() : '';
  name = name.replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1').replace(/\s+/g, ' ').trim();
  if (!name && email) name = email.split('@')[0];
  if (!name) return undefined;
  return email ? { identity: email.toLowerCase(), organizer: name, email } : { identity: name.toLowerCase(), organizer: name };
}
