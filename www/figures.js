// A figure's downloads: its SVG always; PNG (at a chosen resolution) and PDF when the build
// has the figures export (issue 45 item 3: `render_figure(svg, format, dpi)` -> bytes, run
// in the engine's worker). The export is looked for once, in the whole module and, when the
// page names one, in a figures module of its own (FIGURES_GLUE); without it the PNG and PDF
// buttons stay hidden and nothing is requested that is not there.

import { el, downloadLink, downloadNow } from './dom.js';

/**
 * The glue of a separately built figures module (wasm-bindgen `--target web`, exporting
 * `render_figure` or `renderFigure`), relative to this file: `cargo xtask build` makes it
 * (www/pkg/figures). The whole module's own export is looked for first either way.
 */
export const FIGURES_GLUE = './pkg/figures/exemplar_wasm.js';

/** The resolutions a PNG is offered at, in dots per inch; the first is the default. */
export const PNG_DPI = [300, 150, 600];

const glueUrl = () => (FIGURES_GLUE ? new URL(FIGURES_GLUE, import.meta.url).href : null);

let availability = null;
let uid = 0;

/** Resolves to whether PNG and PDF can be written (asked of the worker once). */
export function figuresAvailable(engine) {
  availability ??= engine.figures.available(glueUrl());
  return availability;
}

/**
 * The downloads of figure `svg` (its text, or a Blob of it) of tool `tool`: a link to the SVG, and buttons
 * for PNG (with its resolution) and PDF, shown once the export is found (`engine`: engine.js,
 * its `figures`). `status` says what a failed rendering says.
 */
export function figureDownloads(tool, svg, engine) {
  const status = el('span', { class: 'note figure-status', role: 'status' });
  const dpiId = `dpi-${tool}-${++uid}`;
  const dpi = el(
    'select',
    { id: dpiId, class: 'dpi' },
    PNG_DPI.map((d) => el('option', { value: String(d), text: `${d} dpi` })),
  );
  const render = (format, type, filename, button) => async () => {
    button.disabled = true;
    status.textContent = ` Writing the ${format.toUpperCase()}\u2026`;
    try {
      const text = typeof svg === 'string' ? svg : await svg.text();
      // A resolution is a PNG's; a PDF takes none.
      const resolution = format === 'png' ? Number(dpi.value) : undefined;
      const bytes = await engine.figures.render(text, format, resolution, glueUrl());
      downloadNow(filename, new Blob([bytes], { type }), type);
      status.textContent = '';
    } catch (err) {
      status.textContent = ` The ${format.toUpperCase()} could not be written: ${err.message}`;
    } finally {
      button.disabled = false;
    }
  };
  const png = el('button', { type: 'button', class: 'figure-png', 'data-format': 'png', text: 'Download PNG' });
  png.addEventListener('click', render('png', 'image/png', `${tool}.png`, png));
  const pdf = el('button', { type: 'button', class: 'figure-pdf', 'data-format': 'pdf', text: 'Download PDF' });
  pdf.addEventListener('click', render('pdf', 'application/pdf', `${tool}.pdf`, pdf));
  const print = el(
    'span',
    { class: 'figure-print', hidden: '' },
    png,
    ' ',
    el('label', { for: dpiId, class: 'visually-hidden', text: 'PNG resolution' }),
    dpi,
    ' ',
    pdf,
  );
  const svgLink = downloadLink('Download SVG', `${tool}.svg`, svg, 'image/svg+xml');
  svgLink.classList.add('figure-svg');
  const downloads = el('span', { class: 'figure-downloads' }, svgLink, ' ', print, status);
  // `data-print` says, once it is known, whether PNG and PDF are offered.
  figuresAvailable(engine).then((yes) => {
    print.hidden = !yes;
    downloads.dataset.print = yes ? 'offered' : 'absent';
  });
  return downloads;
}
