import { describe, expect, it } from 'vitest';
import { decodeQuotedPrintable, splitTextList, unescapeText } from '../../src/ical/text.ts';
import { looksLikeHtml, plainToHtml } from '../../src/sources/ics/text.ts';
import { sanitizeHtml } from '../../src/model/html.ts';
import { corpusEvents, ics, run, runCorpus } from './helpers.ts';

describe('TEXT unescaping', () => {
  it('turns \\n \\N \\, \\; \\\\ into their characters', () => {
    expect(unescapeText('a\\nb\\Nc\\,d\\;e\\\\f')).toBe('a\nb\nc,d;e\\f');
  });
  it('keeps an escaped backslash followed by n as a literal backslash-n', () => {
    expect(unescapeText('C:\\\\new')).toBe('C:\\new');
    expect(unescapeText('a\\\\nb')).toBe('a\\nb');
  });
  it('accepts the invalid but meant \\: and \\", keeps unknown escapes and a trailing backslash', () => {
    expect(unescapeText('x\\:y \\"q\\"')).toBe('x:y "q"');
    expect(unescapeText('\\q and end\\')).toBe('\\q and end\\');
  });
  it('splits lists on unescaped commas only', () => {
    expect(splitTextList('Meeting\\, John,Work\\, Sarah,Project')).toEqual(['Meeting, John', 'Work, Sarah', 'Project']);
    expect(splitTextList('')).toEqual(['']);
    // An escaped backslash does not escape the comma after it; empty items and a trailing backslash stay.
    expect(splitTextList('a\\\\,b')).toEqual(['a\\', 'b']);
    expect(splitTextList(',x,')).toEqual(['', 'x', '']);
    expect(splitTextList('Kinder & Familie,end\\')).toEqual(['Kinder & Familie', 'end\\']);
  });
  it('decodes the corpus escapes exactly (outlook \\\\n, tripit trailing \\;, exchange uppercase \\N)', () => {
    const outlook = corpusEvents('outlook-escaped-chars-pst-tzid-no-vtimezone-crlf.ics')[0].description!;
    expect(outlook).toContain('\\n');
    expect(outlook).toContain(';');
    const cdo = corpusEvents('exchange-cdo-tijuana-request-empty-class.ics')[0].description!;
    expect(cdo).not.toMatch(/\\N/);
    expect(cdo).toContain('\n');
  });
});

describe('QUOTED-PRINTABLE', () => {
  it('decodes =XX bytes as UTF-8 and keeps text that only claims to be QP', () => {
    expect(decodeQuotedPrintable('Gr=C3=BC=C3=9Fe =3D ok')).toBe('Grüße = ok');
    expect(decodeQuotedPrintable('Straße am See')).toBe('Straße am See');
    expect(decodeQuotedPrintable('caf=E9', 'iso-8859-1')).toBe('café');
  });
  it('decodes the Drupal feed (soft breaks, =0D=0A, =3D)', () => {
    const d = corpusEvents('drupal-library-quoted-printable-soft-breaks.ics')[0];
    expect(d.summary).toBe('Library Tea');
    expect(d.description).toContain('MicrosoftInternetExplorer4</p>\r\n<br class="clear" />');
  });
});

describe('HTML descriptions', () => {
  it('escapes plain text and keeps every line break', () => {
    expect(plainToHtml('a < b & c\n\n"d"')).toBe('a &lt; b &amp; c<br>\n<br>\n&quot;d&quot;');
  });
  it('strips script, style, event handlers and javascript: URLs; keeps safe markup', () => {
    const dirty =
      '<html><head><title>t</title><style>p{}</style></head><body onload="x()"><p class="a" onclick="evil()">Hi <b>there</b></p>' +
      '<script>alert(1)</script><a href="javascript:alert(1)">x</a> <a href="https://ok.example/">ok</a><img src="x.png" onerror="e()"><iframe src="//e"></iframe></body></html>';
    const clean = sanitizeHtml(dirty);
    expect(clean).toBe('<p>Hi <b>there</b></p><a>x</a> <a href="https://ok.example/">ok</a><img src="x.png" />');
    expect(clean).not.toMatch(/script|style|on[a-z]+=|javascript:|iframe|title/i);
  });
  it('returns nothing for markup without visible content', () => {
    expect(sanitizeHtml('<html><body><p>&nbsp;</p><!-- x --></body></html>')).toBe('');
  });
  it('recognises HTML in a plain DESCRIPTION', () => {
    expect(looksLikeHtml('<p>Hello</p>')).toBe(true);
    expect(looksLikeHtml('a < b > c')).toBe(false);
  });
  it('prefers X-ALT-DESC;FMTTYPE=text/html, sanitized, and falls back to DESCRIPTION', () => {
    const r = run(ics('UID:h\nSUMMARY:S\nDTSTART:20240101T100000Z\nDESCRIPTION:plain\nX-ALT-DESC;FMTTYPE=text/html:<p onclick="x">Rich <script>bad()</script><i>text</i></p>'));
    expect(r.drafts[0].description).toBe('<p>Rich <i>text</i></p>');
    const plain = run(ics('UID:h\nSUMMARY:S\nDTSTART:20240101T100000Z\nDESCRIPTION:line 1\\nline <2>'));
    expect(plain.drafts[0].description).toBe('line 1<br>\nline &lt;2&gt;');
  });
  it('renders the corpus X-ALT-DESC feeds without scripts or literal \\n', () => {
    for (const f of ['outlook12-kuala-lumpur-tab-folds-x-alt-desc.ics', 'wordpress-ai1ec-icalcreator-fablab-german.ics', 'podio-tab-folding-altrep-junk-after-end.ics']) {
      for (const d of runCorpus(f).drafts.slice(0, 50)) {
        expect(d.description ?? '').not.toMatch(/<script|<style|\bon\w+=|\\n|<html|<head/i);
      }
    }
    const podio = runCorpus('podio-tab-folding-altrep-junk-after-end.ics').drafts[0];
    expect(podio.description).toContain('<strong>Termin</strong> für');
  });
});
