/**
 * The one way this page builds elements. Children that are strings become text nodes, never HTML:
 * model output and tool text go into the page as text, so an answer holding `<script>` shows as text.
 */

/**
 * @param {string} tag
 * @param {Record<string, unknown>} [props] `class`, `on<event>` listeners, other attributes
 * @param {...(Node|string|number|null|undefined|false|Array<unknown>)} children
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = String(value);
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** Replaces an element's children. */
export function fill(node, ...children) {
  node.replaceChildren();
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child instanceof Node ? child : String(child));
}

/** Runs `update` and keeps a scrolled-to-the-end list at its end (a list scrolled up stays where it is). */
export function keepScrolledToEnd(scroller, update) {
  const atEnd = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 40;
  update();
  if (atEnd) scroller.scrollTop = scroller.scrollHeight;
}

/** A duration for people: 850 ms, 2.4 s, 3 min 5 s. */
export function formatMs(ms) {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const min = Math.floor(ms / 60_000);
  return `${min} min ${Math.round((ms % 60_000) / 1000)} s`;
}
