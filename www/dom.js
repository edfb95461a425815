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
    el('tbody', {}, rows.map((row) => tableRow(row, numeric))),
  );
}

/** A row of `table`'s body: its cells (strings or nodes), right-aligned where `numeric` says. */
export function tableRow(row, numeric = new Set()) {
  return el('tr', {}, row.map((cell, i) => el('td', { class: numeric.has(i) ? 'num' : undefined }, cell ?? '')));
}

/**
 * The cells of a large table drawn at once, in the task that shows it: its further rows
 * follow a slice at a time (`appendInSlices`). Laying out the 2,300 cells of a result's
 * 100-row table of 23 columns held the page's thread for 40 ms and more (issue 41 item 13).
 */
export const FIRST_CELLS = 100;

/**
 * The rows of a table of `columns` columns drawn at once (FIRST_CELLS), and at most in one
 * later slice (4 × FIRST_CELLS cells: about 7 ms of layout for a result's table, traced on
 * a loaded machine).
 */
export function rowsPerSlice(columns) {
  const per = (cells) => Math.max(1, Math.floor(cells / Math.max(1, columns)));
  return { first: per(FIRST_CELLS), most: per(4 * FIRST_CELLS) };
}

/**
 * The most the page's thread may spend on one slice of drawing a large result, its layout
 * included: a frame's worth, well within the 50 ms of a long task (issue 41 item 13).
 */
export const SLICE_BUDGET_MS = 8;

/**
 * Resolves in a later task, after the tasks waiting (an agent's next call, a person's
 * input) and the rendering due have had their turn: `scheduler.yield()` where the browser
 * has it, else a timer.
 */
export function yieldToPage() {
  if (typeof globalThis.scheduler?.yield === 'function') return globalThis.scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Appends a node made by `make(item)` for each of `items` to `parent`, a slice at a time:
 * the first `first` at once, in the caller's task, then slices in tasks of their own, each
 * laid out as it is added (so that its layout counts in its time) and as long as fits
 * SLICE_BUDGET_MS at the pace of the slice before (at most twice as long, and at most `most`
 * items: a table is laid out anew whole as rows join it, so a slice's cost grows faster than
 * its rows). Stops when `parent` leaves the document or `current()` turns false (a later
 * result replaces this one). Resolves to whether every item was appended.
 */
export async function appendInSlices(parent, items, make, { first, most = Infinity, current = () => true }) {
  let size = Math.max(1, Math.min(first, most));
  for (let i = 0; i < items.length; ) {
    if (i > 0) {
      await yieldToPage();
      if (!parent.isConnected || !current()) return false;
    }
    const started = performance.now();
    const end = Math.min(items.length, i + size);
    const fragment = document.createDocumentFragment();
    for (; i < end; i++) fragment.append(make(items[i]));
    parent.append(fragment);
    if (parent.isConnected) {
      // Laid out now, in this slice's task, rather than with the slices after it in a frame.
      void parent.getBoundingClientRect();
      const spent = Math.max(performance.now() - started, 0.1);
      size = Math.max(1, Math.min(2 * size, most, Math.round((size * SLICE_BUDGET_MS) / spent)));
    }
  }
  return true;
}

/** Wraps a wide element so it scrolls inside itself, not the page. */
export function scroller(child, label) {
  return el('div', { class: 'scroller', role: 'region', tabindex: '0', 'aria-label': label }, child);
}

/** A download link for text built in the page, or a Blob (a Blob URL, same origin). */
export function downloadLink(label, filename, text, type) {
  const url = URL.createObjectURL(text instanceof Blob ? text : new Blob([text], { type }));
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
