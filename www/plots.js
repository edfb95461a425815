// Plots next to results. After a tool run that has a companion plot (Rust
// decides which, and from which of the run's arguments: the run report's
// `plot`), the page asks the engine for that plot with the run's arguments
// and draws its SVG beside the tool's result.
// When a run starts, its tool's plot slot is emptied at once: a result area
// never shows the output of another run.
//
// The SVG is our own Rust output (exemplar::plots), never pasted text. It is
// parsed as XML with DOMParser and imported as nodes. It carries no style
// attribute (the page's CSP has no 'unsafe-inline'); the page's CSS sizes it.
//
// Drawing is presentation, not analysis: it is not a ledger entry (the run it
// illustrates is), and it happens shortly after the run, once per burst of
// calls, so an agent's tool round trip does not pay for the SVG.

import { el, fill, downloadLink, yieldToPage } from './dom.js';
import { figureDownloads } from './figures.js';

const DRAW_DELAY_MS = 30;
/**
 * An SVG longer than this is parsed in one task and drawn in the next: the two together
 * take about 20 ms for the longest drawn by itself (the engine's `max_drawn_svg_chars`).
 */
const SPLIT_SVG_CHARS = 50_000;

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
 * `companionPlot(name, seq)` is the engine's, for the run with ledger seq
 * `seq` (async, resolves to
 * `{tool, ok | error}` or null, never rejects; `ok` is `{svg}`, or `{svgBlob, chars}` for
 * an SVG the worker found too long to draw by itself); `slotFor(name)` gives the element where a
 * tool's plot goes (or null). A plot's SVG longer than `maxDrawnSvgChars`
 * (the engine's page metadata says how long: laying out more would hold the
 * page's thread too long) is offered as a download, and drawn here when the
 * person asks.
 */
export function createPlotter({ companionPlot, slotFor, maxDrawnSvgChars, figures }) {
  const pending = new Map();
  const runs = new Map(); // the latest run of each tool: a late plot of an older run is dropped

  async function draw(name, seq, via, run) {
    const slot = slotFor(name);
    if (!slot) return;
    // Never rejects: a plot that could not be drawn comes as an error the engine worded.
    const out = await companionPlot(name, seq);
    if (runs.get(name) !== run) return;
    for (const old of slot.querySelectorAll('a[download]')) URL.revokeObjectURL(old.href);
    if (out === null) return;
    if ('error' in out) {
      fill(slot, el('p', { class: 'status alarm', text: `The plot could not be drawn: ${out.error.code}: ${out.error.message}` }));
      return;
    }
    if (tooLarge(out.ok)) {
      offer(slot, out, via);
      return;
    }
    show(slot, out, via, () => runs.get(name) === run);
  }

  /** A plot (`{svg}`, or `{svgBlob, chars}` as the worker sends one too long to draw by itself) that is offered, not drawn. */
  const tooLarge = (ok) => typeof ok.svg !== 'string' || ok.svg.length > maxDrawnSvgChars;

  /**
   * Draws the plot's SVG into the slot, with its caption and download. A long SVG is parsed
   * in one task and drawn (imported, laid out, painted) in a later one, unless `current()`
   * has turned false meanwhile (a later run took the slot).
   */
  async function show(slot, out, via, current = () => true) {
    let svg;
    try {
      svg = svgNode(out.ok.svg);
    } catch (err) {
      fill(slot, el('p', { class: 'status alarm', text: `The plot could not be drawn: ${err.message}` }));
      return;
    }
    if (out.ok.svg.length > SPLIT_SVG_CHARS) {
      await yieldToPage();
      if (!current()) return;
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
          ` from this run's arguments, after a run by ${via}. `,
          figures ? figureDownloads(out.tool, out.ok.svg, figures) : downloadLink('Download the SVG', `${out.tool}.svg`, out.ok.svg, 'image/svg+xml'),
        ),
      ),
    );
  }

  /**
   * A plot too large to draw by itself: its download, and a button that draws it. Its SVG
   * comes as text or as a Blob (`svgBlob`, read when the button is pressed).
   */
  function offer(slot, out, via) {
    const { svg, svgBlob } = out.ok;
    const chars = ((out.ok.chars ?? svg.length) / 1e6).toFixed(1);
    const drawIt = el('button', { type: 'button', text: 'Draw it here' });
    drawIt.addEventListener('click', async () => {
      drawIt.disabled = true;
      let text;
      try {
        text = svg ?? (await svgBlob.text());
      } catch (err) {
        fill(slot, el('p', { class: 'status alarm', text: `The plot could not be drawn: ${err.message}` }));
        return;
      }
      // Another run's plot took the slot meanwhile.
      if (!slot.contains(drawIt)) return;
      for (const old of slot.querySelectorAll('a[download]')) URL.revokeObjectURL(old.href);
      show(slot, { tool: out.tool, ok: { svg: text } }, via, () => slot.contains(drawIt));
    });
    fill(
      slot,
      el(
        'p',
        { class: 'note plot-offer', 'data-plot-tool': out.tool },
        `The plot of this result (`,
        el('code', { text: out.tool }),
        `, ${chars} million characters of SVG) is too large to draw without holding the page; `,
        downloadLink('download the SVG', `${out.tool}.svg`, svgBlob ?? svg, 'image/svg+xml'),
        ' or ',
        drawIt,
        '.',
      ),
    );
  }

  return {
    /** A run has started (or failed): the slot must not keep an earlier run's plot. */
    clear(name) {
      runs.set(name, (runs.get(name) ?? 0) + 1);
      clearTimeout(pending.get(name));
      pending.delete(name);
      const slot = slotFor(name);
      if (slot) {
        for (const old of slot.querySelectorAll('a[download]')) URL.revokeObjectURL(old.href);
        fill(slot);
      }
    },
    /**
     * Draws a plot tool's own result (`figure`, the SVG our engine returned for that run, as
     * engine.js `figureOf` gives it: `{svg}` or `{svgBlob, chars}`) in the tool's slot, as a
     * companion plot is drawn: parsed as XML, imported as nodes; or offers it when too long.
     */
    figure(name, figure, via) {
      const slot = slotFor(name);
      if (!slot || !figure || (typeof figure.svg !== 'string' && !(figure.svgBlob instanceof Blob))) return;
      const out = { tool: name, ok: figure };
      const run = runs.get(name);
      if (tooLarge(figure)) offer(slot, out, via);
      else show(slot, out, via, () => runs.get(name) === run);
    },
    /** Draws the plot for a successful run soon; a later run of the same tool replaces it. */
    schedule(name, seq, via) {
      const previous = pending.get(name);
      if (previous) clearTimeout(previous);
      const run = runs.get(name);
      pending.set(
        name,
        setTimeout(() => {
          pending.delete(name);
          draw(name, seq, via, run);
        }, DRAW_DELAY_MS),
      );
    },
  };
}
