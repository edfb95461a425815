// The engine's own thread: the wasm instance and this visit's Session live
// here, so no tool call, however large, blocks the page. Every message is
// one call; the reply carries its value, or the error with whether the
// instance trapped (a Rust panic), after which the page ends this worker and
// starts a fresh one. Nothing here decides anything: each op is one call of
// the wasm API.

// The glue of the module this worker runs (www/pkg/core, or www/pkg/full
// once a call needs it), imported by URL from the page.
let wasm = null;
let tier = null; // 'core' or 'full': which module `wasm` is
let session = null;

// Arguments come as text, as the pieces of a large input's text (engine.js
// `inputText`: joined here, off the page's thread), or as an object.
const text = (args) => (typeof args === 'string' ? args : Array.isArray(args) ? args.join('') : JSON.stringify(args ?? {}));

// The arguments text of the latest runs, by ledger seq: a run's plot is drawn
// from them, so the page does not send (and clone) large arguments twice.
// At most RECENT_RUNS runs, and their texts at most RECENT_CHARS characters together (the
// latest run's kept whatever its length).
const recent = new Map();
const RECENT_RUNS = 16;
const RECENT_CHARS = 32 * 1024 * 1024;
let recentChars = 0;

// "Your data": the view of the latest request (exemplar::your_data, parsed once here), so
// that the page receives its summary and a page of its rows, never the whole view (20,000
// rows and their records are megabytes: parsing or cloning them holds a thread for seconds).
// Each op carries its request (an object, written as JSON here, off the page's thread), so
// a fresh worker (after a trap or a cancelled call) computes the view again.
let yourData = null;

function yourDataOf(request) {
  const text = JSON.stringify(request);
  if (yourData?.text !== text) yourData = { text, view: JSON.parse(wasm.yourDataView(text)) };
  return yourData.view;
}

function remember(seq, argsText) {
  recent.set(seq, argsText);
  recentChars += argsText.length;
  while (recent.size > RECENT_RUNS || (recent.size > 1 && recentChars > RECENT_CHARS)) {
    const [oldest, text] = recent.entries().next().value;
    recent.delete(oldest);
    recentChars -= text.length;
  }
}

/**
 * A Session continuing the ledger `entries` (JSON text), its handles made again from the
 * loads' arguments the page kept (`loads`: [ledger seq, arguments text or its pieces]).
 * The first module makes no handles (loading data is the whole engine's, and the worker never
 * goes back to it), so it has no `restoreWithLoads`: it restores the ledger alone.
 */
function restored(module, entries, loads = []) {
  if (!module.Session.restoreWithLoads) return module.Session.restore(entries);
  return module.Session.restoreWithLoads(
    entries,
    loads.map(([seq]) => seq),
    loads.map(([, args]) => text(args)),
  );
}

/** @typedef {import('./generated/engine').RunReport} RunReport */

/**
 * A run report (`RunReport`) as the page takes it: parsed here, off the page's
 * thread, with the response as its JSON text (`responseText`), which crosses
 * to the page as one string. A result of megabytes is then neither cloned as
 * objects into the page nor turned back into text there (an agent's
 * executeTool answers text). A plot tool's SVG comes beside it (`figure`, see
 * `drawable`), so that the page need not parse the response to draw it.
 * @param {string} reportText
 * @returns {Omit<RunReport, 'response'> & {responseText: string, figure?: {svg: string} | {svgBlob: Blob, chars: number}}}
 */
function lean(reportText) {
  /** @type {RunReport} */
  const { response, ...report } = JSON.parse(reportText);
  // A plot tool's SVG (the result's member the view names as its figure), apart: the page
  // draws it without parsing the whole response (megabytes) on its thread.
  const figure = report.view?.figure;
  const svg = figure ? response?.structuredContent?.[figure] : undefined;
  return { ...report, responseText: JSON.stringify(response), ...(typeof svg === 'string' ? { figure: drawable(svg) } : {}) };
}

// The longest SVG the page draws by itself (the engine's page metadata).
let maxDrawnChars = null;

/**
 * A plot's SVG as the page takes it: `{svg}`, its text, when the page draws it by itself;
 * else `{svgBlob, chars}`, a Blob of it made here (what the page offers as a download; a
 * Blob crosses to the page as a handle, so megabytes of SVG are neither copied nor
 * encoded on the page's thread) and its length in characters.
 */
function drawable(svg) {
  maxDrawnChars ??= JSON.parse(wasm.metadata()).max_drawn_svg_chars;
  if (svg.length <= maxDrawnChars) return { svg };
  return { svgBlob: new Blob([svg], { type: 'image/svg+xml' }), chars: svg.length };
}

// The figures export, once found (null: none).
let figures;

async function figureRenderer(glue) {
  if (figures !== undefined) return figures;
  const own = wasm.render_figure ?? wasm.renderFigure;
  if (typeof own === 'function') return (figures = own);
  if (!glue) return (figures = null);
  const module = await import(glue);
  await module.default();
  const render = module.render_figure ?? module.renderFigure;
  return (figures = typeof render === 'function' ? render : null);
}

const ops = {
  // The glue and the module (compiled here from `wasmUrl` when the page has
  // none yet: then it is handed back, for the page's instance and later
  // workers), then the instance and the Session.
  async start({ glue, tier: which, module, wasm: wasmUrl, entries, loads }) {
    const [loaded, compiled] = await Promise.all([import(glue), module ?? WebAssembly.compileStreaming(fetch(wasmUrl))]);
    [wasm, tier] = [loaded, which];
    await wasm.default({ module_or_path: compiled });
    session = entries ? restored(wasm, entries, loads) : new wasm.Session();
    return module ? null : compiled;
  },
  // The full module takes over: its Session continues this one's ledger.
  async upgrade({ module, glue, loads }) {
    const full = await import(glue);
    await full.default({ module_or_path: module });
    const next = restored(full, session.entriesJson(), loads);
    session.free();
    [wasm, session, tier] = [full, next, 'full'];
    return null;
  },
  // Arguments may come as an object (an agent's input, cloned here so that
  // turning it into text does not cost the page's thread) or as text.
  // A call the first module does not answer (a tool it lacks, or an argument or scale only
  // the whole engine reads: exemplar::session::Session::run_here) is not ledgered here: the
  // page moves the engine to the whole module and calls again.
  run: ({ name, args, time }) => {
    if (tier === 'core' && !wasm.hasTool(name)) return { missing: true };
    const argsText = text(args);
    const reportText = session.run(name, argsText, time);
    if (reportText === 'null') return { missing: true };
    const report = lean(reportText);
    remember(report.entry.seq, argsText);
    // The loads whose handles are held: none on the first module, which has no `keptLoads`.
    const kept = session.keptLoads ? Array.from(session.keptLoads()) : [];
    return { report, entry: session.lastEntryJson(), kept };
  },
  // How the page shows a result (the response's JSON text): the engine's printed summary
  // and tables, from the whole module (the first leaves views out).
  view: ({ name, responseText }) => {
    const { structuredContent } = JSON.parse(responseText);
    return JSON.parse(wasm.resultView(name, JSON.stringify(structuredContent)));
  },
  // A call the page saw fail (`failure`: what it saw, `{kind, reason?}`), ledgered as the
  // session decides (exemplar::session::Failure).
  failed: ({ name, args, time, failure }) => ({
    report: lean(session.recordFailure(name, text(args ?? ''), time, JSON.stringify(failure))),
    entry: session.lastEntryJson(),
  }),
  // Your data's view without its rows and records, with `count` of its rows from `from`
  // (of the rows that give no record only, when `errorsOnly`); `row_count` all its rows,
  // `selected` those chosen.
  yourData: ({ request, from, count, errorsOnly }) => {
    const { rows, records, tool_records: toolRecords, records_csv: recordsCsv, ...summary } = yourDataOf(request);
    const chosen = errorsOnly ? rows.filter((r) => r.error !== null) : rows;
    return { ...summary, row_count: rows.length, selected: chosen.length, from, rows: chosen.slice(from, from + count) };
  },
  // A person's run of tool `name` on Your data: the arguments typed in its form (`args`),
  // completed in Rust (the study column where the tool names one; or the sentence why the run
  // cannot be made, thrown), with Your data's records or CSV rows (`takes`) attached, as JSON text.
  yourDataInput: ({ request, name, args, takes }) => {
    const view = yourDataOf(request);
    const offer = { takes, study: view.study, k: view.k, rows: view.rows.length };
    const answer = JSON.parse(wasm.yourDataToolInput(name, JSON.stringify(args), JSON.stringify(offer)));
    if (answer.error !== undefined) throw new Error(answer.error);
    const { args: completed, takes: key } = answer.ok;
    const attached = key === 'records' ? JSON.stringify(view.tool_records) : wasm.yourDataRows(yourData.text);
    const head = JSON.stringify(completed).slice(0, -1);
    return `${head}${head === '{' ? '' : ','}${JSON.stringify(key)}:${attached}}`;
  },
  // What Your data's workspace offers to choose from, read off the records the tools receive:
  // their columns (yi, vi and the measure left out), at most `most` ids, and at most `most`
  // distinct values of `column` (when given), with how many there are.
  yourDataFacts: ({ request, column, most }) => {
    const records = yourDataOf(request).tool_records ?? [];
    const columns = new Set();
    for (const r of records) for (const key of Object.keys(r)) columns.add(key);
    for (const key of ['yi', 'vi', 'measure']) columns.delete(key);
    const values = new Map();
    if (column) for (const r of records) if (r[column] !== undefined && r[column] !== null && r[column] !== '') values.set(JSON.stringify(r[column]), r[column]);
    return {
      columns: [...columns],
      k: records.length,
      ids: records.slice(0, most).map((r) => r.id),
      values: [...values.values()].slice(0, most),
      distinct: values.size,
    };
  },
  // Its records as a download: `csv` (Rust's text) or `json`.
  yourDataDownload: ({ request, format }) => {
    const view = yourDataOf(request);
    return format === 'csv' ? view.records_csv : JSON.stringify(view.records, null, 2);
  },
  // The plot beside run `seq` of tool `name`, with that run's arguments.
  // `{tool, ok: {svg} | {svgBlob, chars}}` (see `drawable`), `{tool, error}` or null.
  plot: ({ name, seq }) => {
    if (!recent.has(seq)) return null;
    const out = JSON.parse(session.companionPlot(name, recent.get(seq)));
    if (typeof out?.ok?.svg === 'string') out.ok = drawable(out.ok.svg);
    return out;
  },
  // Whether a figure can be written as PNG and PDF here, and the figure so written (issue 45
  // item 3: the figures export, `render_figure(svg, format, dpi)` -> bytes): the whole
  // module's export when it has one, else that of the figures module at `glue` (when the page
  // names one). The page offers PNG and PDF only when this says so.
  figureFormats: async ({ glue }) => (await figureRenderer(glue)) !== null,
  figure: async ({ glue, svg, format, dpi }) => {
    const render = await figureRenderer(glue);
    if (!render) throw new Error('this build has no figures export');
    return render(svg, format, dpi);
  },
  // The R code and methods text of run `seq` of tool `name`, from that run's arguments
  // (exemplar::session::Session::r_code): `{r_code, methods_text}`, `{error}` or null.
  rcode: ({ name, seq }) => (recent.has(seq) ? JSON.parse(session.rCode(name, recent.get(seq))) : null),
  // The rules every tool follows (exemplar::tools::instructions), on the full module.
  instructions: () => wasm.instructions(),
  // A form's text read as arguments (exemplar::session::form), on the full module:
  // `{ok: args}` or `{error: sentence}`.
  formArgs: ({ schema, fields, lenient }) => JSON.parse(wasm.formArgs(JSON.stringify(schema), JSON.stringify(fields), lenient)),
  verify: () => session.verify(),
  entries: () => session.entriesJson(),
  trap: () => wasm.trapForTest(),
};

// A run's response text longer than this crosses to the page in pieces of this length, each
// a message of its own: the page reads each in a task of its own (reading 7 million
// characters in one message held its thread for 10 to 20 ms), and joins them without a copy.
const PIECE_CHARS = 1 << 20;

self.onmessage = async ({ data }) => {
  try {
    let value = await ops[data.op](data);
    const text = value?.report?.responseText;
    if (typeof text === 'string' && text.length > PIECE_CHARS) {
      for (let at = 0; at < text.length; at += PIECE_CHARS) self.postMessage({ id: data.id, piece: text.slice(at, at + PIECE_CHARS) });
      value = { ...value, report: { ...value.report, responseText: null } };
    }
    self.postMessage({ id: data.id, value });
  } catch (err) {
    self.postMessage({
      id: data.id,
      error: { trap: err instanceof WebAssembly.RuntimeError, message: String(err?.message ?? err) },
    });
  }
};
