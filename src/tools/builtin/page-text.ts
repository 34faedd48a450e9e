import { Parser } from 'htmlparser2';

/** Elements whose content is code, styling or markup, never text a reader sees. */
const hiddenElements = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'canvas',
  'iframe',
  'object',
]);

/** Elements that start a new line when a browser shows the page. */
const blockElements = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'title',
  'tr',
  'ul',
]);

/** Table cells sit side by side. */
const cellElements = new Set(['td', 'th']);

/**
 * The readable text of an HTML page: what a reader sees, one block per line, without scripts, styles or markup.
 * Entities are decoded; runs of spaces and blank lines are folded as crewAI's scraper folds them.
 */
export function pageText(html: string): string {
  const parts: string[] = [];
  let hiddenDepth = 0;
  let preDepth = 0;
  const parser = new Parser(
    {
      onopentagname(name) {
        if (name === 'pre') preDepth += 1;
        if (hiddenElements.has(name)) hiddenDepth += 1;
        else if (blockElements.has(name)) parts.push('\n');
        else if (cellElements.has(name)) parts.push(' ');
      },
      onclosetag(name, isImplied) {
        if (name === 'pre') preDepth = Math.max(0, preDepth - 1);
        if (hiddenElements.has(name)) hiddenDepth = Math.max(0, hiddenDepth - 1);
        else if (blockElements.has(name) && !isImplied) parts.push('\n');
      },
      ontext(text) {
        // Line breaks in the source are only spacing, as a browser shows them, except in preformatted text.
        if (hiddenDepth === 0) parts.push(preDepth > 0 ? text : text.replace(/\s+/g, ' '));
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  return foldWhitespace(parts.join(''));
}

/** Folds spaces within lines and drops blank lines, the way crewAI's scraper tidies its text. */
export function foldWhitespace(text: string): string {
  return text
    .split(/\r?\n|\r/)
    .map((line) => line.replace(/[\s\u00a0]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}
