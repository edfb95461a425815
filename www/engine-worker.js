// The engine's own thread: the wasm instance and this visit's Session live
// here, so no tool call, however large, blocks the page. Every message is
// one call; the reply carries its value, or the error with whether the
// instance trapped (a Rust panic), after which the page ends this worker and
// starts a fresh one. Nothing here decides anything: each op is one call of
// the wasm API.

import init, { Session, trapForTest } from './pkg/exemplar_wasm.js';

let session = null;

const ops = {
  async start({ module, entries }) {
    await init({ module_or_path: module });
    session = entries ? Session.restore(entries) : new Session();
    return null;
  },
  run: ({ name, args, time }) => session.run(name, args, time),
  interrupt: ({ name, args, time, cancelled }) => session.recordInterruption(name, args, time, cancelled),
  plot: ({ name, args }) => session.companionPlot(name, args),
  verify: () => session.verify(),
  entries: () => session.entriesJson(),
  trap: () => trapForTest(),
};

self.onmessage = async ({ data }) => {
  try {
    const value = await ops[data.op](data);
    self.postMessage({ id: data.id, value });
  } catch (err) {
    self.postMessage({
      id: data.id,
      error: { trap: err instanceof WebAssembly.RuntimeError, message: String(err?.message ?? err) },
    });
  }
};
