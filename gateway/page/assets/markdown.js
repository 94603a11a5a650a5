/**
 * Markdown for the agent's answers, safely: `marked` (served from node_modules at /assets/vendor/marked.js)
 * only splits the text into tokens; this file builds the elements from them with el(), every piece of
 * text a text node. No HTML string is ever parsed: markup the model writes (`<img onerror>`, `<script>`)
 * is shown as the text it is, links go only to http(s) and mailto addresses, and images are shown as
 * links, not loaded.
 */
import { lexer } from './vendor/marked.js';
import { el } from './dom.js';

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Markdown's character references (`&amp;`, `&#39;`) as the characters they name; into text nodes only. */
function decode(text) {
  return String(text).replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, name) => {
    if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** A link target the page may open: absolute http(s) or mailto only. */
function safeHref(href) {
  try {
    const url = new URL(String(href), 'https://invalid.example/');
    if (url.origin === 'https://invalid.example') return null; // relative: nothing of this page's to link to
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

function inline(tokens = []) {
  return tokens.map((t) => {
    switch (t.type) {
      case 'strong':
        return el('strong', {}, inline(t.tokens));
      case 'em':
        return el('em', {}, inline(t.tokens));
      case 'del':
        return el('del', {}, inline(t.tokens));
      case 'codespan':
        return el('code', {}, t.text); // code is literal: no references in it
      case 'br':
        return el('br');
      case 'link': {
        const href = safeHref(t.href);
        return href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer nofollow' }, inline(t.tokens)) : el('span', {}, inline(t.tokens));
      }
      case 'image': {
        const href = safeHref(t.href);
        const label = `[image: ${decode(t.text || t.href)}]`;
        return href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer nofollow', class: 'md-image' }, label) : label;
      }
      case 'text':
        return t.tokens ? inline(t.tokens) : decode(t.text);
      case 'escape':
        return t.text;
      case 'html':
      default:
        return t.raw ?? t.text ?? ''; // markup stays text
    }
  });
}

function block(t) {
  switch (t.type) {
    case 'space':
    case 'def':
      return null;
    case 'paragraph':
      return el('p', {}, inline(t.tokens));
    case 'heading':
      // Headings of an answer are small: the page's own headings stay above them.
      return el(`h${Math.min(6, t.depth + 3)}`, { class: 'md-heading' }, inline(t.tokens));
    case 'code':
      return el('pre', { class: 'md-code' }, el('code', {}, t.text));
    case 'blockquote':
      return el('blockquote', {}, blocks(t.tokens));
    case 'hr':
      return el('hr');
    case 'list': {
      const start = t.ordered && Number(t.start) > 1 ? { start: Number(t.start) } : {};
      return el(t.ordered ? 'ol' : 'ul', start, t.items.map(listItem));
    }
    case 'table':
      return el(
        'div',
        { class: 'md-table' },
        el(
          'table',
          {},
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              t.header.map((c) => el('th', {}, inline(c.tokens))),
            ),
          ),
          el(
            'tbody',
            {},
            t.rows.map((row) =>
              el(
                'tr',
                {},
                row.map((c) => el('td', {}, inline(c.tokens))),
              ),
            ),
          ),
        ),
      );
    case 'text':
      return el('p', {}, t.tokens ? inline(t.tokens) : decode(t.text));
    case 'html':
    default:
      return el('p', {}, t.raw ?? t.text ?? ''); // a block of markup stays text
  }
}

function listItem(item) {
  const parts = item.tokens.flatMap((t) => {
    if (t.type === 'checkbox') return [el('input', { type: 'checkbox', disabled: true, checked: !!t.checked }), ' '];
    // A tight list's text is inline; a loose list's paragraphs are blocks.
    if (t.type === 'text') return inline(t.tokens ?? [{ type: 'text', text: t.text }]);
    return [block(t)];
  });
  return el('li', item.task ? { class: 'task-item' } : {}, parts);
}

function blocks(tokens = []) {
  return tokens.map(block).filter(Boolean);
}

/** The elements of `text` read as markdown (GitHub's flavour); the text itself if it cannot be read. */
export function renderMarkdown(text) {
  try {
    return blocks(lexer(String(text ?? ''), { gfm: true }));
  } catch {
    return [String(text ?? '')];
  }
}
