// Plots next to results. After a tool run that has a companion plot (Rust
// decides which: exemplar::tools::companion_plot), the page asks wasm for that
// plot with the same arguments and draws its SVG beside the tool's result.
//
// The SVG is our own Rust output (exemplar::plots), never pasted text. It is
// parsed as XML with DOMParser and imported as nodes. It carries no style
// attribute (the page's CSP has no 'unsafe-inline'); the page's CSS sizes it.
//
// Drawing is presentation, not analysis: it is not a ledger entry (the run it
// illustrates is), and it happens shortly after the run, once per burst of
// calls, so an agent's tool round trip does not pay for the SVG.

import { el, fill, downloadLink } from './dom.js';

const DRAW_DELAY_MS = 30;

/** Parses SVG text into a node of this document, or throws. */
export function svgNode(svgText) {
  const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
  const root = doc.documentElement;
  if (root.localName !== 'svg' || doc.getElementsByTagName('parsererror').length > 0) {
    throw new Error('the plot is not well-formed SVG');
  }
  return document.importNode(root, true);
}

/**
 * `companionPlot(name, argsJson)` is the wasm export; `slotFor(name)` gives
 * the element where a tool's plot goes (or null).
 */
export function createPlotter({ companionPlot, slotFor }) {
  const pending = new Map();

  function draw(name, argsJson, via) {
    const slot = slotFor(name);
    if (!slot) return;
    for (const old of slot.querySelectorAll('a[download]')) URL.revokeObjectURL(old.href);
    const out = JSON.parse(companionPlot(name, argsJson));
    if (out === null) return;
    if ('error' in out) {
      fill(slot, el('p', { class: 'status alarm', text: `The plot could not be drawn: ${out.error.code}: ${out.error.message}` }));
      return;
    }
    let svg;
    try {
      svg = svgNode(out.ok.svg);
    } catch (err) {
      fill(slot, el('p', { class: 'status alarm', text: `The plot could not be drawn: ${err.message}` }));
      return;
    }
    fill(
      slot,
      el(
        'figure',
        { class: 'plot', 'data-plot-tool': out.tool },
        el('div', { class: 'plot-scroll', role: 'region', tabindex: '0', 'aria-label': `${out.tool} of this result` }, svg),
        el(
          'figcaption',
          { class: 'note' },
          'Drawn in this browser by ',
          el('code', { text: out.tool }),
          ` with the same arguments, after a run by ${via}. `,
          downloadLink('Download the SVG', `${out.tool}.svg`, out.ok.svg, 'image/svg+xml'),
        ),
      ),
    );
  }

  return {
    /** A failed run has no plot: the slot must not keep an earlier run's. */
    clear(name) {
      clearTimeout(pending.get(name));
      pending.delete(name);
      const slot = slotFor(name);
      if (slot) {
        for (const old of slot.querySelectorAll('a[download]')) URL.revokeObjectURL(old.href);
        fill(slot);
      }
    },
    /** Draws the plot for a successful run soon; a later run of the same tool replaces it. */
    schedule(name, argsJson, via) {
      const previous = pending.get(name);
      if (previous) clearTimeout(previous);
      pending.set(
        name,
        setTimeout(() => {
          pending.delete(name);
          draw(name, argsJson, via);
        }, DRAW_DELAY_MS),
      );
    },
  };
}
