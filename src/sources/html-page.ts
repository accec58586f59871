/**
 * A web page where a feed or a file was expected: a login page, an error page, the page that links
 * to the download instead of the download. Tested on the text's start (and, for a page opening
 * with something else, an `<html>` tag with a closing tag further on).
 */
export function looksLikeHtmlPage(text: string): boolean {
  const head = text.slice(0, 4096);
  if (/^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body|meta|title|script|div|p)\b/i.test(head)) return true;
  return /<html[\s>]/i.test(head) && /<\/(?:html|body|div|p|head)>/i.test(text.slice(0, 65536));
}
