// The exemplar page. Everything it knows about the benchmark (dataset,
// prompt, tools, scorer, ledger) comes from the wasm package built from
// crates/exemplar-wasm; this module only lays it out and wires events.

import init, {
  metadata,
  datasetCsv,
  datasetJson,
  toolDefinitions,
  callTool,
  companionPlot,
  score,
  sha256Hex,
  Ledger,
} from './pkg/exemplar_wasm.js';
import { el, fill, byId, table, scroller, downloadLink, pretty } from './dom.js';
import { registerTools } from './webmcp.js';

// Only what registering the tools needs is imported statically: the page's
// other modules (preloaded by index.html all the same) are not waited for
// before the tools are registered.
const later = Promise.all([
  import('./forms.js'),
  import('./scoring.js'),
  import('./ledger.js'),
  import('./plots.js'),
  import('./evidence.js'),
]).then(([forms, scoring, ledger, plots, evidence]) => ({ ...forms, ...scoring, ...ledger, ...plots, ...evidence }));

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
  const actual = sha256Hex(new TextEncoder().encode(datasetCsv()));
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

function renderData(meta) {
  const dataset = JSON.parse(datasetJson());
  const columns = dataset.columns.map((c) => c.name);
  const stem = `dataset-${meta.baseline_version}`;
  const first = dataset.records[0] ?? {};
  const numeric = new Set(columns.flatMap((c, i) => (typeof first[c] === 'number' ? [i] : [])));
  fill(
    byId('data-downloads'),
    downloadLink('Download CSV', `${stem}.csv`, datasetCsv(), 'text/csv'),
    ' ',
    downloadLink('Download JSON', `${stem}.json`, pretty(datasetJson()), 'application/json'),
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
    const actual = sha256Hex(new Uint8Array(await response.arrayBuffer()));
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

const toolArticleId = (name) => `tool-${name}`;

/**
 * One entry point for agents and people alike: every run is ledgered, and a
 * successful run of a tool with a companion plot gets that plot drawn beside
 * its result.
 */
function makeRunner(views) {
  let ready = null;
  views.then(
    (v) => {
      ready = v;
    },
    () => {},
  );
  return async (name, argsJson, via) => {
    // The ledger and plot views exist before the first run can be recorded:
    // a run that comes in while the page is still starting waits for them.
    const { ledgerView, plotter } = ready ?? (await views);
    const outcome = JSON.parse(callTool(name, argsJson));
    // The ledger records what was asked even when it was not JSON (the tool
    // then answered with an error): such arguments go in as a JSON string.
    let ledgerArgs = argsJson;
    try {
      JSON.parse(argsJson);
    } catch {
      ledgerArgs = JSON.stringify(argsJson);
    }
    ledgerView.append(name, ledgerArgs, JSON.stringify('ok' in outcome ? outcome.ok : outcome), via);
    if ('ok' in outcome) plotter.schedule(name, argsJson, via);
    else plotter.clear(name);
    return outcome;
  };
}

function resultText(outcome) {
  return 'ok' in outcome
    ? { text: JSON.stringify(outcome.ok, null, 2), isError: false }
    : { text: `Error ${outcome.error.code}: ${outcome.error.message}`, isError: true };
}

/** The tool's result area says who ran it last. */
function labelResult(name, via) {
  const output = document.getElementById(toolArticleId(name))?.querySelector('pre.result');
  const labelNode = output?.previousElementSibling;
  if (labelNode?.classList.contains('output-label')) labelNode.textContent = `Result (run by ${via})`;
  return output;
}

/** Shows an agent's run in the tool's own result area, as a person's run is. */
function showAgentResult(name, outcome, via) {
  const output = labelResult(name, via);
  if (!output) return;
  const { text, isError } = resultText(outcome);
  output.textContent = text;
  output.classList.toggle('error', isError);
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

function renderToolList(definitions, run, toolForm) {
  fill(
    byId('tool-list'),
    definitions.map((def) =>
      el(
        'article',
        { class: 'tool', id: toolArticleId(def.name), 'aria-labelledby': `tool-${def.name}-title` },
        el('h3', { id: `tool-${def.name}-title` }, el('code', { text: def.name }), def.title ? ` · ${def.title}` : ''),
        el('p', { class: 'description', text: def.description }),
        el(
          'details',
          {},
          el('summary', { text: 'Input schema' }),
          el('pre', { class: 'schema', tabindex: '0', text: JSON.stringify(def.inputSchema, null, 2) }),
        ),
        toolForm(def, async (argsJson) => {
          const via = 'person (form)';
          const outcome = await run(def.name, argsJson, via);
          labelResult(def.name, via);
          return resultText(outcome);
        }),
        el('div', { class: 'plot-slot' }),
      ),
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
    score,
    visitTarget: byId('visit-scores'),
    panels: ['pdf', 'webmcp'].map((key) => ({
      condition: key === 'pdf' ? 'PDF' : 'WebMCP',
      textarea: byId(`answer-${key}`),
      button: byId(`score-${key}`),
      result: byId(`result-${key}`),
    })),
  });
}

async function boot() {
  await init();
  performance.mark('wasm-initialized');
  const definitions = JSON.parse(toolDefinitions());
  // The ledger and plot views are made once their modules are in, which the
  // registration below does not wait for.
  const views = later.then(({ createLedgerView, createPlotter }) => ({
    ledgerView: createLedgerView({
      Ledger,
      tableTarget: byId('ledger-table'),
      statusTarget: byId('ledger-status'),
      exportButton: byId('ledger-export'),
    }),
    plotter: createPlotter({
      companionPlot,
      slotFor: (name) => document.getElementById(toolArticleId(name))?.querySelector('.plot-slot') ?? null,
    }),
  }));
  const run = makeRunner(views);
  const agentRun = async (name, argsJson, via) => {
    const outcome = await run(name, argsJson, via);
    showAgentResult(name, outcome, via);
    return outcome;
  };

  // Agents first: the tools are registered before any other section renders
  // (the other modules load meanwhile; the metadata is parsed afterwards).
  const registration = await registerTools(definitions, agentRun);
  document.documentElement.dataset.toolsRegistered = String(registration.mode !== 'none');
  performance.mark('tools-registered');

  renderRegistration(registration, definitions.length);
  const modules = await later;
  await views;
  const meta = JSON.parse(metadata());
  renderToolList(definitions, run, modules.toolForm);
  renderHeader(meta);
  renderData(meta);
  renderProtocol(meta, modules.setUpScoring);
  await Promise.all([modules.loadEvidence(byId('evidence-body')), renderMethods(), renderArtifacts(meta)]);
  document.documentElement.dataset.ready = 'true';
}

boot().catch((err) => {
  const banner = byId('boot-error');
  banner.hidden = false;
  banner.textContent = `The page could not start: ${err && err.message ? err.message : err}`;
  console.error(err);
});
