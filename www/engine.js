// The engine: the wasm module and this visit's Session, behind one async
// call. It owns what the page must survive: a trap (a Rust panic) leaves a
// WebAssembly instance in an undefined state, so after any trap the instance
// is discarded, a fresh one is instantiated from the already compiled module,
// and the session is restored from the ledger entries kept here, outside the
// instance. The failed call is then ledgered (in Rust) as an internal error.

const GLUE = './pkg/exemplar_wasm.js';

let glue = null; // the wasm-bindgen module of the live instance
let session = null; // its Session
let compiled = null; // the compiled WebAssembly.Module, reused for fresh instances
let generation = 0;
let trapArmed = false;
const entries = []; // every ledger entry of this visit, oldest first
let starting = null;

async function instantiate() {
  // A second import of the same URL returns the same (trapped) module
  // instance: a fresh one needs a URL of its own.
  const url = generation === 0 ? GLUE : `${GLUE}?instance=${generation}`;
  generation += 1;
  const module = await import(url);
  await module.default(compiled ? { module_or_path: compiled } : undefined);
  compiled = compiled ?? module.default.__wbindgen_wasm_module ?? null;
  glue = module;
  session = entries.length ? module.Session.restore(JSON.stringify(entries)) : new module.Session();
}

/** Starts the engine once; every call awaits it. */
export function start() {
  starting = starting ?? instantiate();
  return starting;
}

function isTrap(err) {
  return err instanceof WebAssembly.RuntimeError;
}

async function recover() {
  glue = null;
  session = null;
  starting = instantiate();
  await starting;
}

const now = () => new Date().toISOString();

/**
 * Runs a tool and ledgers the run. Resolves to the Rust report
 * `{ok | error, response, entry, plot}`; never rejects for a tool's own
 * failure. An aborted `signal` before the run starts ledgers a cancellation.
 */
export async function run(name, argsJson, signal) {
  await start();
  let report;
  if (signal?.aborted) {
    report = JSON.parse(session.recordInterruption(name, argsJson, now(), true));
  } else {
    try {
      if (trapArmed) {
        trapArmed = false;
        glue.trapForTest();
      }
      report = JSON.parse(session.run(name, argsJson, now()));
    } catch (err) {
      if (!isTrap(err)) throw err;
      await recover();
      report = JSON.parse(session.recordInterruption(name, argsJson, now(), false));
    }
  }
  entries.push(report.entry);
  return report;
}

/** The plot beside `name`'s result: `{tool, ok | error}` or null. */
export async function companionPlot(name, argsJson) {
  await start();
  try {
    return JSON.parse(session.companionPlot(name, argsJson));
  } catch (err) {
    if (!isTrap(err)) throw err;
    await recover();
    return { tool: name, error: { code: 'internal_error', message: 'the engine stopped while drawing the plot and was restarted' } };
  }
}

/** Synchronous helpers for the parts of the page drawn after start(). */
export const engine = {
  metadata: () => JSON.parse(glue.metadata()),
  datasetCsv: () => glue.datasetCsv(),
  datasetJson: () => glue.datasetJson(),
  score: (raw) => glue.score(raw),
  workspaceView: (requestJson) => glue.workspaceView(requestJson),
  sha256Hex: (bytes) => glue.sha256Hex(bytes),
  verify: () => JSON.parse(session.verify()),
  entriesJson: () => JSON.stringify(entries),
  length: () => entries.length,
};

/**
 * For the end-to-end test of the recovery only: the next run first calls a
 * wasm export that panics, as a bug in the engine would.
 */
export function armTrapForTest() {
  trapArmed = true;
}
