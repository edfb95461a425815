// The engine, behind async calls. The tools and "Your data" run in a
// dedicated module worker (www/engine-worker.js), so no call blocks the page
// however large it is; the page's own core instance on this thread serves
// only the small synchronous helpers (metadata, dataset, scorer, SHA-256).
//
// It owns what the page must survive:
// - a trap (a Rust panic) leaves an instance in an undefined state: the
//   worker is ended, a fresh one instantiated from the compiled module, and
//   its Session restored from the ledger entries kept here, outside any
//   instance; the call is then ledgered (in Rust) as an internal error;
// - an aborted call (WebMCP's execute signal, or the form's Cancel) ends the
//   worker the same way, stopping the computation, and is ledgered as
//   cancelled.
// Calls run one at a time, in order.

// Two wasm modules (crates/xtask/src/build.rs): `core` holds the benchmark's
// tools, the scorer and the ledger, and is what the page fetches first; `full`
// holds every tool, the plots and "Your data". A call that core lacks (any
// other tool, an argument only full reads, a plot, a result's tables and
// summary, Your data's view) moves the worker to full first: the
// full instance's Session continues the visit's ledger from the entries
// core's recorded. This thread compiles full (off the thread, streaming) but
// makes no instance of it.
const PACKAGES = {
  core: new URL('./pkg/core/', import.meta.url),
  full: new URL('./pkg/full/', import.meta.url),
};
const glueUrl = (tier) => new URL('exemplar_wasm.js', PACKAGES[tier]).href;
const wasmUrl = (tier) => new URL('exemplar_wasm_bg.wasm', PACKAGES[tier]);

// The glue of this thread's core instance, imported when the engine starts,
// after the tools are registered: registration waits for nothing of the engine.
let glue = null;

const compiled = { core: null, full: null }; // compiled WebAssembly.Modules, shared with every worker
let tier = 'core'; // the module the worker runs
let fullLoad = null;
let worker = null;
let nextId = 0;
const waiting = new Map(); // id -> { resolve, reject }
// Every ledger entry of this visit as JSON text, oldest first (never parsed here): the
// ledger holds a call's arguments whole only when short (exemplar::session::LEDGER_ARGS_BYTES),
// else their size and SHA-256, so these stay small however large the calls.
const entries = [];
// The arguments (text, or its pieces) of the loads whose data handles the engine holds, by
// ledger seq (exemplar::session::Session::kept_loads: at most 16): a fresh worker replays
// them, so the handles survive a restart. No other call's arguments are kept.
const loads = new Map();
let queue = Promise.resolve();
let starting = null;
let workerReady = null; // the first worker's start: calls need only this, not this thread's instance
let trapArmed = false;

class Trap extends Error {}
/** The whole module could not be loaded (its glue or its wasm): the message says why. */
class Unavailable extends Error {}

/**
 * Starts a worker on the current module: from the compiled module, or, for
 * the first worker, from the wasm's URL, which the worker compiles (off this
 * thread, while the page is laid out). Resolves to the compiled module the
 * first worker made, which every later instance is made from.
 */
function spawn(module = compiled[tier]) {
  worker = new Worker(new URL('./engine-worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => {
    const pending = waiting.get(data.id);
    if (!pending) return;
    // A piece of a long response text, before the reply it belongs to (engine-worker.js).
    if ('piece' in data) {
      (pending.pieces ??= []).push(data.piece);
      return;
    }
    waiting.delete(data.id);
    if (data.error) pending.reject(data.error.trap ? new Trap(data.error.message) : new Error(data.error.message));
    else {
      // Joined by concatenation, which V8 does without copying the pieces.
      if (pending.pieces && data.value?.report) data.value.report.responseText = pending.pieces.reduce((whole, piece) => whole + piece);
      pending.resolve(data.value);
    }
  };
  // A worker that dies (out of memory, a load failure) is a trap too.
  worker.onerror = (event) => {
    event.preventDefault();
    failAll(new Trap(event.message || 'the engine worker stopped'));
  };
  return call('start', {
    glue: glueUrl(tier),
    tier,
    module,
    wasm: module ? null : wasmUrl(tier).href,
    entries: entries.length ? `[${entries.join(',')}]` : null,
    loads: [...loads],
  });
}

function failAll(error) {
  for (const { reject } of waiting.values()) reject(error);
  waiting.clear();
}

function call(op, fields = {}) {
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, op, ...fields });
  });
}

/** Ends the worker (stopping whatever it computes) and starts a fresh one. */
async function restart(why) {
  worker.terminate();
  failAll(why);
  await spawn();
}

/**
 * Loads the core wasm and starts the worker on it, and this thread's
 * instance for the synchronous helpers; resolves when both are up. A call
 * waits for the worker only.
 */
export function start() {
  starting =
    starting ??
    (async () => {
      // Compiled once, by the first worker; this thread's instance and every
      // later worker's are made from that module.
      const module = import(glueUrl('core'));
      workerReady = spawn(null).then((made) => {
        compiled.core = made;
      });
      workerReady.catch(() => {}); // a failure is reported by the awaits of it
      glue = await module;
      await workerReady;
      await glue.default({ module_or_path: compiled.core });
    })();
  return starting;
}

/** Starts the engine if need be and resolves once its worker can take calls. */
async function workerStarted() {
  start().catch(() => {}); // reported by whoever awaits start()
  await workerReady;
}

/**
 * The full module, fetched and compiled once, for the worker (which imports
 * its glue itself).
 */
export function loadFull() {
  fullLoad =
    fullLoad ??
    (async () => {
      try {
        compiled.full = await WebAssembly.compileStreaming(fetch(wasmUrl('full')));
      } catch (err) {
        // A later call tries again (the network may be back).
        fullLoad = null;
        compiled.full = null;
        throw new Unavailable(String(err?.message ?? err));
      }
    })();
  return fullLoad;
}

/** Moves the worker to the full module (once); its Session continues the ledger. */
async function upgrade() {
  if (tier === 'full') return;
  await loadFull();
  try {
    await call('upgrade', { module: compiled.full, glue: glueUrl('full'), loads: [...loads] });
    tier = 'full';
  } catch (err) {
    // The worker could not import the whole module's glue: the core module goes on.
    if (!(err instanceof Trap)) throw new Unavailable(err.message);
    tier = 'full';
    await restart(err);
  }
}

/**
 * Moves the engine to the full module in the background, once the page has
 * started, so that later calls and plots need not wait for it.
 */
export async function preloadFull() {
  await workerStarted();
  await loadFull(); // outside the queue: calls go on meanwhile
  const result = queue.then(upgrade);
  queue = result.catch(() => {});
  return result;
}

const now = () => new Date().toISOString();

/** An array longer than this is turned into text a slice at a time. */
const CHUNK = 2000;
/** The time one slice may take: the slice's length adapts to it (records differ in size). */
const SLICE_BUDGET_MS = 8;
const yieldTask = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * An agent's input as JSON text, written a slice of a large array at a time
 * with a yield between slices, so that no single task of the page's thread
 * grows with the input (a structured clone or one JSON.stringify of 100,000
 * records takes 25 to 50 ms on its own). Text comes through as it is. A
 * large input comes back as an array of text pieces, which the worker joins:
 * one join of megabytes here would be a long task of its own.
 */
async function inputText(input, progress) {
  if (typeof input === 'string') return input;
  const value = input ?? {};
  const large =
    value &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).some((v) => Array.isArray(v) && v.length > CHUNK);
  if (!large) return JSON.stringify(value);
  const pieces = ['{'];
  let members = 0;
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined || typeof item === 'function') continue;
    if (members++ > 0) pieces.push(',');
    if (!Array.isArray(item) || item.length <= CHUNK) {
      pieces.push(`${JSON.stringify(key)}:${JSON.stringify(item)}`);
      continue;
    }
    pieces.push(`${JSON.stringify(key)}:[`);
    let written = 0;
    let size = 500;
    for (let i = 0; i < item.length; ) {
      progress({ stage: 'input', done: i, total: item.length });
      const started = performance.now();
      const end = Math.min(i + size, item.length);
      const slice = JSON.stringify(item.slice(i, end)).slice(1, -1);
      if (slice.length) {
        if (written++ > 0) pieces.push(',');
        pieces.push(slice);
      }
      i = end;
      // The next slice as long as fits the budget at this slice's pace (at least 50 items,
      // and at most twice as many as this one: a slice that ran fast by chance must not make
      // the next one long).
      const spent = Math.max(performance.now() - started, 0.1);
      size = Math.max(50, Math.min(20000, 2 * size, Math.round((size * SLICE_BUDGET_MS) / spent)));
      await yieldTask();
    }
    pieces.push(']');
  }
  pieces.push('}');
  return pieces;
}

/**
 * `{report, entry, kept?}` from the worker: the report (parsed there), the whole entry kept
 * as text; `kept`, after a run, the ledger seqs of the loads whose handles are held: this
 * run's arguments (`args`) are kept if it is one of them, and the loads no longer held are
 * let go.
 */
function keep({ report, entry, kept }, args) {
  entries.push(entry);
  if (kept) {
    const held = new Set(kept);
    if (held.has(report.entry.seq)) loads.set(report.entry.seq, args);
    for (const seq of loads.keys()) if (!held.has(seq)) loads.delete(seq);
  }
  return report;
}

async function runNow(name, input, signal, progress) {
  if (!starting) progress({ stage: 'starting' });
  await workerStarted();
  let args;
  try {
    args = await inputText(input, progress);
  } catch (err) {
    // An input JavaScript cannot write as JSON (a BigInt, a cycle, a toJSON that throws).
    return keep(await call('failed', { name, time: now(), failure: { kind: 'unwritable', reason: String(err?.message ?? err) } }));
  }
  // Every failure seen here is reported; the session (in Rust) decides how it is ledgered and worded.
  const failed = async (failure) => keep(await call('failed', { name, args, time: now(), failure }));
  if (signal?.aborted) return failed({ kind: 'aborted' });
  let onAbort = null;
  const aborted = new Promise((resolve) => {
    onAbort = () => resolve('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    if (trapArmed) {
      trapArmed = false;
      await call('trap');
    }
    progress({ stage: 'computing' });
    const runHere = () => Promise.race([call('run', { name, args, time: now() }), aborted]);
    let outcome = await runHere();
    if (outcome?.missing) {
      // The first module lacks the tool: the whole engine takes over, and runs it.
      progress({ stage: 'loading' });
      try {
        await upgrade();
      } catch (err) {
        if (!(err instanceof Unavailable)) throw err;
        // Said to the caller; the benchmark's tools still work.
        return failed({ kind: 'module_unavailable', reason: err.message });
      }
      progress({ stage: 'computing' });
      outcome = await runHere();
    }
    if (outcome === 'aborted') {
      await restart(new Error('cancelled'));
      return failed({ kind: 'aborted' });
    }
    return keep(outcome, args);
  } catch (err) {
    // A trap, or any other failure of the worker: the worker is replaced and the
    // failure reported, so that every failed call is in the ledger.
    await restart(err);
    return failed({ kind: err instanceof Trap ? 'trapped' : 'worker_failed' });
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * A run report as the page holds it: the engine's `RunReport` with its
 * response as JSON text (`responseText`), parsed when needed (`responseOf`).
 * @typedef {Omit<import('./generated/engine').RunReport, 'response'> & {responseText: string, figure?: {svg: string} | {svgBlob: Blob, chars: number}}} PageReport
 */

/**
 * Runs a tool with `args` (JSON text, or an agent's input object, turned
 * into text in the worker) and ledgers the run. Resolves to the Rust report
 * (a `PageReport`: `{error?, responseText, entry, plot, display,
 * display_abridged, view, args_display}`; `responseText` is the JSON text of
 * what the caller receives, whose structured content is the result; see
 * `responseOf`); never rejects
 * for a tool's own failure. An aborted `signal` stops the run and ledgers a
 * cancellation. `onProgress({stage, done, total})`, if given, hears where the
 * run is: `queued` (behind earlier calls), `starting` (the engine loads),
 * `loading` (the whole engine loads, for a tool the first module lacks),
 * `input` (a large input is turned into text: `done` of `total` items) and
 * `computing` (in the engine's worker).
 */
export function run(name, args, signal, onProgress) {
  const progress = (state) => {
    try {
      onProgress?.(state);
    } catch {
      // A display's failure is not the run's.
    }
  };
  progress({ stage: 'queued' });
  const result = queue.then(() => runNow(name, args, signal, progress));
  queue = result.catch(() => {});
  return result;
}

/**
 * The response of a run report as an object (parsed on this thread: once, when it is needed).
 * @param {PageReport} report
 * @returns {import('./generated/engine').ToolResponse}
 */
export function responseOf(report) {
  return JSON.parse(report.responseText);
}

/**
 * The SVG of a plot tool's result (the member `view.figure` names), as the plotter takes
 * it: `{svg}` (its text), or `{svgBlob, chars}` when it is too long to draw by itself;
 * undefined for a result without one. The worker sends it beside the response (`figure`),
 * so that drawing it does not parse the whole response (megabytes, with the SVG in it
 * twice) on this thread.
 * @param {PageReport} report
 * @param {import('./generated/engine').ResultView | null} view
 * @returns {{svg: string} | {svgBlob: Blob, chars: number} | undefined}
 */
export function figureOf(report, view) {
  const key = view?.figure;
  if (!key) return undefined;
  if (report.figure) return report.figure;
  const svg = responseOf(report).structuredContent?.[key];
  return typeof svg === 'string' ? { svg } : undefined;
}

/**
 * The plot beside the result of run `seq` (its ledger seq) of tool `name`,
 * drawn in the worker from that run's arguments: `{tool, ok | error}` or null,
 * `ok` as `figureOf` gives a plot (`{svg}`, or `{svgBlob, chars}` when too long to draw
 * by itself).
 * Never rejects: a plot that could not be drawn (the whole module did not
 * load, the engine stopped) is an error worded by the engine
 * (exemplar::session::plot_failure, on this thread's instance).
 */
export async function companionPlot(name, seq) {
  const failed = (trapped, err) => JSON.parse(glue.plotFailure(name, trapped, String(err?.message ?? err)));
  try {
    // The plots are in the full module: it is loaded outside the queue, so that
    // calls made meanwhile do not wait behind a plot.
    await workerStarted();
    await loadFull();
  } catch (err) {
    return failed(false, err);
  }
  const result = queue.then(async () => {
    try {
      await upgrade();
      return await call('plot', { name, seq });
    } catch (err) {
      if (!(err instanceof Trap)) return failed(false, err);
      try {
        await restart(err);
      } catch (again) {
        return failed(false, again);
      }
      return failed(true, err);
    }
  });
  queue = result.catch(() => {});
  return result;
}

/**
 * How the page shows run `report` of tool `name` to a person (`ResultView`: the printed
 * summary and tables), or null for an error. A run the first module answered carries none:
 * the whole module, loaded outside the queue as for a plot, draws it. Never rejects: null
 * when the whole module cannot load (the JSON is still shown).
 */
export async function resultView(name, report) {
  if (report.view || 'error' in report) return report.view ?? null;
  try {
    await workerStarted();
    await loadFull();
  } catch {
    return null;
  }
  const result = queue.then(async () => {
    try {
      await upgrade();
      return await call('view', { name, responseText: report.responseText });
    } catch {
      return null;
    }
  });
  queue = result.catch(() => {});
  return result;
}

/**
 * The R code and methods text of run `seq` of tool `name` (exemplar::session::Session::r_code,
 * from that run's arguments, not ledgered): `{r_code, methods_text}`, `{error}` (a tool that
 * writes none among them), or null for a run the whole module cannot reach. Never rejects.
 */
export async function rCode(name, seq) {
  try {
    await workerStarted();
    await loadFull();
  } catch {
    return null;
  }
  const result = queue.then(async () => {
    try {
      await upgrade();
      return await call('rcode', { name, seq });
    } catch {
      return null;
    }
  });
  queue = result.catch(() => {});
  return result;
}

/** Resolves once every call made so far has been answered. */
export function settled() {
  return queue;
}

/** The ledger's verification (incremental, in Rust) and its export. */
export async function verify() {
  await queue;
  return JSON.parse(await call('verify'));
}

export async function entriesJson() {
  await queue;
  return call('entries');
}

/** Synchronous helpers, on this thread's core instance, once start() has resolved. */
export const engine = {
  /** @returns {import('./generated/engine').PageMetadata} */
  metadata: () => JSON.parse(glue.metadata()),
  datasetCsv: () => glue.datasetCsv(),
  datasetJson: () => glue.datasetJson(),
  score: (raw) => glue.score(raw),
  sha256Hex: (bytes) => glue.sha256Hex(bytes),
};

/**
 * An op of the full module in the worker ("Your data", a form's reading, the
 * instructions), queued with the calls. A trap ends the worker (a fresh one
 * computes the view again); its message names `what` was being worked on.
 */
function inWorker(op, fields, what = 'Your data') {
  const result = queue.then(async () => {
    await workerStarted();
    await upgrade();
    try {
      return await call(op, fields);
    } catch (err) {
      if (!(err instanceof Trap)) throw err;
      await restart(err);
      throw new Error(`the engine stopped while working on ${what} and was restarted (${err.message})`);
    }
  });
  queue = result.catch(() => {});
  return result;
}

/**
 * "Your data", computed and held in the worker (exemplar::your_data): for a
 * request (`{csv, measure, mapping, add, to}`, written as JSON there), its
 * view without rows and records, with `count` rows from `from` (of the rows
 * that give no record only, when `errorsOnly`); a person's run of tool `name`
 * on it: the arguments typed (`args`) completed in Rust, with its records or
 * CSV rows (`takes`: `records` or `data`), as JSON text, or a rejection with
 * the sentence why not; a download (`csv` or `json`); what the workspace offers to choose
 * (`facts`: the records' columns, ids, and the distinct values of a column).
 */
export const yourData = {
  view: (request, { from = 0, count, errorsOnly = false }) => inWorker('yourData', { request, from, count, errorsOnly }),
  toolInput: (request, name, args, takes) => inWorker('yourDataInput', { request, name, args, takes }),
  download: (request, format) => inWorker('yourDataDownload', { request, format }),
  facts: (request, column, most) => inWorker('yourDataFacts', { request, column, most }),
};

/**
 * A figure as PNG or PDF, by the figures export (issue 45 item 3), in the worker: `available(glue)`
 * resolves to whether the build has it (the whole module's own, or the figures module whose glue
 * is at `glue`, when given); `render(svg, format, dpi, glue)` to its bytes (a Uint8Array).
 */
export const figures = {
  available: (glue) => inWorker('figureFormats', { glue }, 'the figure').catch(() => false),
  render: (svg, format, dpi, glue) => inWorker('figure', { glue, svg, format, dpi }, 'the figure'),
};

/** The rules every tool follows, as the engine says them (the full module's `instructions`). */
export const instructions = () => inWorker('instructions', {});

/**
 * A form's text (`fields`: name → text) read as the arguments `schema` describes
 * (exemplar::session::form), by the full module (the first module has no form reading),
 * loaded first if need be. Rejects with the sentence naming the field to fix, or saying
 * that the whole engine could not be loaded.
 */
export async function formArgs(schema, fields, lenient) {
  let read;
  try {
    read = await inWorker('formArgs', { schema, fields, lenient }, 'the form');
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
    throw new Error(`the form is read by the whole engine, which could not be loaded (${err.message})`);
  }
  if ('error' in read) throw new Error(read.error);
  return read.ok;
}

/**
 * For the end-to-end test of the recovery only: the next run first calls a
 * wasm export that panics, as a bug in the engine would.
 */
export function armTrapForTest() {
  trapArmed = true;
}
