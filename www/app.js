// The exemplar page. Everything it knows about the benchmark (dataset,
// prompt, tools, scorer, ledger) comes from Rust: the tool definitions from
// www/generated/tools.json (written from the registry by `cargo xtask codegen`),
// the rest from the wasm package built from crates/exemplar-wasm. This module
// only lays it out and wires events.
//
// Agents first: the tools are registered from the definitions before the
// wasm has loaded; a call that comes in meanwhile waits for the engine.

import { el, fill, byId, table, scroller, downloadLink, downloadNow, pretty } from './dom.js';
import { registered, connectRunner } from './register.js';
import * as engineModule from './engine.js';

const { engine } = engineModule;

// Only what registering the tools needs is imported statically (and
// preloaded by index.html); the page's other modules are imported once the
// tools are registered, so that they do not compete with it for the network.
let laterModules = null;
const later = () =>
  (laterModules ??= Promise.all([
    import('./forms.js'),
    import('./scoring.js'),
    import('./ledger.js'),
    import('./plots.js'),
    import('./evidence.js'),
    import('./your-data.js'),
    import('./workspace.js'),
    import('./rcode.js'),
  ]).then(([forms, scoring, ledger, plots, evidence, yourDataForm, workspace, rcode]) => ({
    ...forms,
    ...scoring,
    ...ledger,
    ...plots,
    ...evidence,
    ...yourDataForm,
    ...workspace,
    ...rcode,
  })));

function setText(id, text) {
  const node = byId(id);
  node.textContent = text;
  node.classList.remove('pending');
}

function renderHeader(meta) {
  setText('baseline-version', meta.baseline_version);
  setText('dataset-name', meta.dataset_name);
  if (meta.dataset_description) byId('dataset-description').textContent = meta.dataset_description;
  setText('dataset-sha256', meta.dataset_sha256);
  setText('engine-version', meta.engine_version);
  // The CSV the page offers must be the bytes the hash names.
  const actual = engine.sha256Hex(new TextEncoder().encode(engine.datasetCsv()));
  const check = byId('dataset-check');
  if (actual === meta.dataset_sha256) {
    check.className = 'badge ok';
    check.textContent = 'verified in this browser';
  } else {
    check.className = 'badge alarm';
    check.setAttribute('role', 'alert');
    check.textContent = `MISMATCH: the embedded CSV hashes to ${actual}`;
  }
}

/**
 * The counts and names the page's text states (the scored fields, the dataset's records,
 * a ledger entry's fields), as the engine's metadata gives them.
 * @param {import('./generated/engine').PageMetadata} meta
 */
function renderCounts(meta) {
  setText('scored-fields', String(meta.scored_fields));
  setText('record-count', String(meta.record_count));
  setText('ledger-fields', `{${meta.ledger_fields.join(', ')}}`);
}

function renderData(meta) {
  const dataset = JSON.parse(engine.datasetJson());
  const columns = dataset.columns.map((c) => c.name);
  const stem = `dataset-${meta.baseline_version}`;
  const first = dataset.records[0] ?? {};
  const numeric = new Set(columns.flatMap((c, i) => (typeof first[c] === 'number' ? [i] : [])));
  fill(
    byId('data-downloads'),
    downloadLink('Download CSV', `${stem}.csv`, engine.datasetCsv(), 'text/csv'),
    ' ',
    downloadLink('Download JSON', `${stem}.json`, pretty(engine.datasetJson()), 'application/json'),
  );
  fill(
    byId('data-table'),
    scroller(
      table(
        columns,
        dataset.records.map((row) => columns.map((c) => String(row[c] ?? ''))),
        { caption: `${dataset.records.length} effect-size records`, className: 'data', numeric },
      ),
      'The dataset',
    ),
    el(
      'dl',
      { class: 'columns' },
      dataset.columns.map((c) => [el('dt', {}, el('code', { text: c.name })), el('dd', { text: c.description })]),
    ),
  );
}

async function renderMethods() {
  const target = byId('methods-body');
  try {
    const response = await fetch('www/generated/methods.html');
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    // Our own build output (docs/METHODS.md through pulldown-cmark), not
    // pasted or computed text: the one place HTML is inserted as HTML.
    target.innerHTML = await response.text();
  } catch (err) {
    fill(target, el('p', { class: 'status alarm', text: `The methods could not be loaded (${err.message}). Run cargo xtask build.` }));
  }
}

async function renderArtifacts(meta) {
  const target = byId('artifact-body');
  if (!meta.pdf_sha256) {
    fill(
      target,
      el('p', {
        text:
          'The frozen PDF has not been generated yet. When it exists, this section links to ' +
          `${meta.pdf_path} with its SHA-256, and the page hashes the file in this browser to check it.`,
      }),
    );
    return;
  }
  const status = el('p', { class: 'status', role: 'status', text: 'Verifying…' });
  fill(
    target,
    el('p', {}, el('a', { href: meta.pdf_path, text: meta.pdf_path }), ' (the PDF condition\'s evidence artifact)'),
    el('p', {}, 'Expected SHA-256: ', el('code', { class: 'hash', text: meta.pdf_sha256 })),
    status,
  );
  try {
    const response = await fetch(meta.pdf_path, { cache: 'no-store' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const actual = engine.sha256Hex(new Uint8Array(await response.arrayBuffer()));
    if (actual === meta.pdf_sha256) {
      status.className = 'status ok';
      status.textContent = 'Verified: the served file hashes to the expected SHA-256 in this browser.';
    } else {
      status.className = 'status alarm';
      status.setAttribute('role', 'alert');
      status.textContent = `MISMATCH: the served file hashes to ${actual}. It is not the frozen artifact.`;
    }
  } catch (err) {
    status.className = 'status alarm';
    status.setAttribute('role', 'alert');
    status.textContent = `The PDF could not be fetched for verification (${err.message}).`;
  }
}

/**
 * The rules every tool follows, as the engine says them (exemplar::tools::instructions, on
 * the whole module), folded in the tools section: a paragraph for each of its paragraphs.
 */
async function renderRules() {
  const text = await engineModule.instructions();
  fill(
    byId('tool-rules-body'),
    text.split('\n\n').map((paragraph) => el('p', { text: paragraph })),
  );
}

const toolArticleId = (name) => `tool-${name}`;

/**
 * One entry point for agents and people alike: every run is ledgered (in
 * Rust, by the engine's Session), its tool's plot slot is emptied as it
 * starts, and a successful run of a tool with a companion plot gets that plot
 * drawn beside its result.
 */
function makeRunner(views) {
  let viewsNow = null;
  views.then((v) => {
    viewsNow = v;
  });
  // `shown`: whether the tool's own area in the tool list shows the run (a run from Your
  // data's workspace is shown there, in a card of its own, and ledgered as every run).
  return async (name, args, via, signal, onProgress, { shown = true } = {}) => {
    // The run does not wait for the ledger and plot views: a run that comes
    // in while the page is still starting is shown once they exist.
    if (shown) viewsNow?.plotter.clear(name);
    const cleared = viewsNow !== null;
    const report = await engineModule.run(name, args, signal, onProgress);
    // The caller has its report at once; the page shows it as soon as it can.
    views
      .then(async ({ ledgerView, plotter }) => {
        ledgerView.append(report, via);
        if (!shown) return;
        if (!cleared) plotter.clear(name);
        if (report.plot) plotter.schedule(name, report.entry.seq, via);
        // A plot tool's own result: the SVG our engine drew, drawn as a companion plot is.
        const view = await engineModule.resultView(name, report);
        const svg = engineModule.figureOf(report, view);
        if (svg !== undefined) plotter.figure(name, svg, via);
        const { renderResultView, showReproduction } = await later();
        showResult(name, report, view, via, renderResultView, showReproduction);
      })
      .catch((err) => console.error(err));
    return report;
  };
}

/** The latest result shown in each tool's area: a slower one still drawing gives way to it. */
const shownRuns = new Map();

/**
 * A tool's result area shows its latest run and says who ran it: a result as the
 * engine's printed summary and tables (`resultView`, engine.js), with its JSON, every digit, folded below them and a
 * download and a copy of it; an error as its message. The JSON shown is cut when long
 * (Rust cuts it); the download and the copy are whole, written when asked for. A large
 * table's rows are drawn a slice at a time (forms.js `renderResultView`).
 */
function showResult(name, report, resultView, via, renderResultView, showReproduction) {
  const area = document.getElementById(toolArticleId(name))?.querySelector('.tool-result');
  const output = area?.querySelector('pre.result');
  if (!output) return;
  const shown = (shownRuns.get(name) ?? 0) + 1;
  shownRuns.set(name, shown);
  const labelNode = area.querySelector('.output-label');
  if (labelNode) labelNode.textContent = `Result (run by ${via})`;
  output.textContent = report.display;
  output.classList.toggle('error', 'error' in report);
  area.querySelector('.result-whole')?.remove();
  area.querySelectorAll('.reproduce').forEach((node) => node.remove());
  const view = area.querySelector('.result-view');
  const json = area.querySelector('details.result-json');
  if (!resultView) {
    fill(view);
    view.removeAttribute('aria-busy');
    json.open = true;
    return;
  }
  // A large table's further rows are drawn a slice at a time, after this task.
  renderResultView(view, resultView, () => shownRuns.get(name) === shown).catch((err) => console.error(err));
  json.open = false;
  const whole = () => JSON.stringify(engineModule.responseOf(report).structuredContent, null, 2);
  const download = el('button', { type: 'button', text: 'Download JSON' });
  download.addEventListener('click', () => downloadNow(`${name}-result-${report.entry.seq}.json`, whole(), 'application/json'));
  const copied = el('span', { class: 'note', role: 'status' });
  const copy = el('button', { type: 'button', text: 'Copy JSON' });
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(whole());
      copied.textContent = ' Copied.';
    } catch {
      copied.textContent = ' Copying is blocked here; use Download JSON.';
    }
  });
  const actions = el('p', { class: 'result-whole actions' }, download, ' ', copy, copied);
  view.after(actions);
  showReproduction(actions, () => engineModule.rCode(name, report.entry.seq), () => shownRuns.get(name) === shown);
}

function renderRegistration(registration, count) {
  const status = byId('webmcp-status');
  const label = { native: 'Native WebMCP', fallback: 'Fallback', none: 'Not registered' }[registration.mode];
  status.className = `status ${registration.mode === 'none' ? 'alarm' : 'ok'}`;
  status.dataset.mode = registration.mode;
  fill(
    status,
    el('strong', { text: `${label}: ` }),
    registration.reason,
    registration.registered.length ? ` Registered ${registration.registered.length} of ${count} tools.` : '',
    registration.failed.map((f) => ` ${f.name} was not registered (${f.reason}).`),
  );
}

/**
 * The tools by group (the groups and their order come from the definitions,
 * i.e. from Rust), each as its name, title and one-line summary, with its
 * form and full description folded in a <details>, and its result and plot
 * right below; a short index of the groups first.
 */
function renderToolList(definitions, run, toolForm, yourInput) {
  const groups = [];
  for (const def of definitions) {
    const key = def.group?.key ?? 'other';
    let group = groups.find((g) => g.key === key);
    if (!group) groups.push((group = { key, title: def.group?.title ?? key, defs: [] }));
    group.defs.push(def);
  }
  const article = (def) => {
    const { form, result } = toolForm(def, (args, signal, onProgress) => run(def.name, args, 'person (form)', signal, onProgress), {
      yourInput,
      formArgs: engineModule.formArgs,
    });
    return el(
      'article',
      { class: 'tool', id: toolArticleId(def.name), 'aria-labelledby': `tool-${def.name}-title` },
      el('h4', { id: `tool-${def.name}-title` }, el('code', { text: def.name }), def.title ? ` · ${def.title}` : ''),
      def.summary ? el('p', { class: 'summary', text: def.summary }) : null,
      el(
        'details',
        { class: 'tool-details' },
        el('summary', { text: 'Form' }),
        form,
        // What an agent reads, for a person who wants it: folded.
        el(
          'details',
          { class: 'tool-description' },
          el('summary', { text: 'Full description and input schema' }),
          el('p', { class: 'description', text: def.description }),
          el('pre', { class: 'schema', tabindex: '0', text: JSON.stringify(def.inputSchema, null, 2) }),
        ),
      ),
      result,
      el('div', { class: 'plot-slot' }),
    );
  };
  fill(
    byId('tool-list'),
    el(
      'nav',
      { class: 'tool-index', 'aria-label': 'Tool index' },
      el(
        'ul',
        {},
        groups.map((g) =>
          el(
            'li',
            {},
            el('a', { href: `#tools-${g.key}`, text: g.title }),
            ': ',
            g.defs.map((def, i) => [i ? ', ' : '', el('a', { href: `#${toolArticleId(def.name)}` }, el('code', { text: def.name }))]),
          ),
        ),
      ),
    ),
    groups.map((g) =>
      el('section', { class: 'tool-group', id: `tools-${g.key}`, 'aria-labelledby': `tools-${g.key}-title` }, el('h3', { id: `tools-${g.key}-title`, text: g.title }), g.defs.map(article)),
    ),
  );
}

function renderProtocol(meta, setUpScoring) {
  byId('prompt').textContent = meta.prompt;
  const copyStatus = byId('copy-status');
  byId('copy-prompt').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(meta.prompt);
      copyStatus.textContent = 'Copied.';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(byId('prompt'));
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      copyStatus.textContent = 'Copying is blocked here; the prompt is selected, press Ctrl+C (or ⌘C).';
    }
  });
  setUpScoring({
    score: engine.score,
    visitTarget: byId('visit-scores'),
    panels: meta.conditions.map(({ key, label }) => ({
      condition: label,
      textarea: byId(`answer-${key}`),
      button: byId(`score-${key}`),
      result: byId(`result-${key}`),
    })),
  });
}

/** Resolves once the tasks already waiting (a call's answer among them) have run. */
const afterOtherTasks = () =>
  new Promise((resolve) => {
    if (globalThis.scheduler?.postTask) globalThis.scheduler.postTask(resolve, { priority: 'background' });
    else setTimeout(resolve, 0);
  });

async function boot() {
  let modulesIn;
  // The ledger and plot views are made once their modules are in.
  // The plotter takes its size limit from the engine's metadata: made once the engine is up.
  const views = new Promise((resolve) => {
    modulesIn = resolve;
  }).then(() => Promise.all([later(), engineModule.start()])).then(([{ createLedgerView, createPlotter }]) => ({
    ledgerView: createLedgerView({
      verify: engineModule.verify,
      entriesJson: engineModule.entriesJson,
      tableTarget: byId('ledger-table'),
      statusTarget: byId('ledger-status'),
      exportButton: byId('ledger-export'),
    }),
    plotter: createPlotter({
      companionPlot: engineModule.companionPlot,
      slotFor: (name) => document.getElementById(toolArticleId(name))?.querySelector('.plot-slot') ?? null,
      maxDrawnSvgChars: engine.metadata().max_drawn_svg_chars,
      figures: engineModule,
    }),
  }));
  const run = makeRunner(views);
  // The tools were registered by www/register.js (an async module of the
  // head, which waits for neither this module nor the page's layout); calls
  // that came in meanwhile waited for this runner.
  connectRunner(run);
  const { definitions, registration } = await registered;
  const engineReady = engineModule.start();
  modulesIn();

  renderRegistration(registration, definitions.length);
  const modules = await later();
  await engineReady;
  performance.mark('wasm-initialized');
  const { ledgerView } = await views;
  ledgerView.start();
  // Calls that waited for the engine are answered before the long page is drawn.
  await engineModule.settled();
  const meta = engine.metadata();
  // "Your data" needs the full module: its records are read at a run, once it is there.
  let yourData = null;
  const yourInput = async (name, args, takes) => {
    if (!yourData) throw new Error('Your data is not ready: the whole engine has not loaded yet.');
    return yourData.input(name, args, takes);
  };
  // One section per task, so that a call's answer on its way to the agent is
  // not held behind the whole page's drawing.
  const sections = [
    () => renderToolList(definitions, run, modules.toolForm, yourInput),
    () => renderHeader(meta),
    () => renderCounts(meta),
    () => renderData(meta),
    () => renderProtocol(meta, modules.setUpScoring),
  ];
  for (const render of sections) {
    await afterOtherTasks();
    render();
  }
  await Promise.all([modules.loadEvidence(byId('evidence-body'), meta.conditions), renderMethods(), renderArtifacts(meta)]);
  // The full module (every tool, the plots, "Your data"), after what the page shows first.
  // Without it the benchmark's tools still work; the sections that need it say why not.
  // Should it fail (the network), the section says so and offers to try again.
  const startYourData = async () => {
    try {
      // Your data is computed in the engine's worker, on the whole module.
      await engineModule.preloadFull();
      yourData = await modules.createYourData({ target: byId('your-data-body'), engine: engineModule.yourData });
      const workspace = modules.createWorkspace({
        target: yourData.workspaceBox,
        definitions,
        run: (name, args, signal, onProgress) => run(name, args, 'person (Your data)', signal, onProgress, { shown: false }),
        engine: engineModule,
        yourInput,
        facts: yourData.facts,
        // The engine writes R code and methods text where its rules say so (issue 46's `r_code`).
        offersRCode: engineModule.instructions().then((text) => /\br_code\b/.test(text)).catch(() => false),
      });
      yourData.facts.onChange(workspace.refresh);
      await renderRules();
    } catch (err) {
      const again = el('button', { type: 'button', text: 'Try again' });
      again.addEventListener('click', () => {
        fill(byId('your-data-body'), el('p', { class: 'pending', text: 'Loading the whole engine…' }));
        startYourData();
      });
      fill(
        byId('your-data-body'),
        el('p', { class: 'status alarm', role: 'alert', text: `The whole engine could not be loaded (${err.message}); the benchmark's tools still work. ` }, again),
      );
    }
  };
  await startYourData();
  document.documentElement.dataset.ready = 'true';
}

boot().catch((err) => {
  const banner = byId('boot-error');
  banner.hidden = false;
  banner.textContent = `The page could not start: ${err && err.message ? err.message : err}`;
  console.error(err);
});
