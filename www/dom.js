// Small DOM helpers. Every piece of text goes in through textContent (via
// `el`), never as HTML: pasted answers and tool results stay text.

/**
 * Creates an element. `props` sets attributes (`class`, `for`, `aria-*`, …)
 * except `text`, which becomes textContent, and `on*` functions, which
 * become event listeners. Children are nodes or strings (text nodes).
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key.startsWith('on') && typeof value === 'function') {
      node.addEventListener(key.slice(2).toLowerCase(), value);
    } else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `node` (nodes or strings). */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`index.html has no element #${id}`);
  return node;
}

/**
 * A table from column names and rows of cell values (strings or nodes);
 * `numeric` holds the indexes of right-aligned columns.
 */
export function table(columns, rows, { caption, className, numeric = new Set() } = {}) {
  const cls = (i) => (numeric.has(i) ? 'num' : undefined);
  return el(
    'table',
    { class: className },
    caption ? el('caption', { text: caption }) : null,
    el('thead', {}, el('tr', {}, columns.map((c, i) => el('th', { scope: 'col', class: cls(i), text: c })))),
    el('tbody', {}, rows.map((row) => el('tr', {}, row.map((cell, i) => el('td', { class: cls(i) }, cell ?? ''))))),
  );
}

/** Wraps a wide element so it scrolls inside itself, not the page. */
export function scroller(child, label) {
  return el('div', { class: 'scroller', role: 'region', tabindex: '0', 'aria-label': label }, child);
}

/** A download link for text built in the page (a Blob URL, same origin). */
export function downloadLink(label, filename, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  return el('a', { class: 'button', href: url, download: filename, text: label });
}

/** Offers text as a file download from a button press. */
export function downloadNow(filename, text, type) {
  const link = downloadLink('', filename, text, type);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

export function pretty(jsonText) {
  return JSON.stringify(JSON.parse(jsonText), null, 2);
}
