// Reduces an HTML page to its readable main text: boilerplate (scripts, styles, navigation,
// site header/footer, sidebars) is dropped and <main>/<article> are preferred when present.
import { parse, type HTMLElement } from 'node-html-parser';

const ALWAYS_DROP = 'script, style, noscript, template, svg, canvas, iframe, object, nav, aside, footer';

export function extractHtmlText(html: string): string {
  const root = parse(html, {
    lowerCaseTagName: true,
    comment: false,
    // Keep <pre> content but do not collect script/style bodies as text at all.
    blockTextElements: { script: false, style: false, noscript: false, template: false, pre: true },
  });
  const main = root.querySelector('main');
  const articles = main ? [] : root.querySelectorAll('article');
  let scopes: HTMLElement[] = main ? [main] : articles;
  const contentScoped = scopes.length > 0;
  if (!contentScoped) scopes = [root.querySelector('body') ?? root];

  const texts = scopes.map((scope) => {
    for (const el of scope.querySelectorAll(ALWAYS_DROP)) el.remove();
    // An article's own <header> holds its title; the page-level one holds the site banner.
    if (!contentScoped) for (const el of scope.querySelectorAll('header')) el.remove();
    return scope.structuredText;
  });
  const text = texts.join('\n\n').trim();
  // A page whose <main> is empty (client-side rendered shells) still has a body worth indexing.
  if (text === '' && contentScoped) return extractHtmlText(html.replace(/<\/?(main|article)\b[^>]*>/gi, ''));
  return text;
}
