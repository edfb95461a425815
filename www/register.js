// Registers the tools as early as the page can. This is an async module of
// the head: it runs as soon as it, webmcp.js and the tool definitions have
// arrived, without waiting for the document to be parsed, styled or laid out
// (app.js, a deferred module, waits for all three). The definitions are
// www/generated/tools.json, written by `cargo xtask codegen` from the Rust
// registry, imported as a JSON module so that they arrive with the module
// graph rather than after it. A call that comes in before app.js has connected the page's
// runner waits for it.

import { registerTools } from './webmcp.js';
import definitions from './generated/tools.json' with { type: 'json' };

let connect;
const runner = new Promise((resolve) => {
  connect = resolve;
});

/** app.js hands over the page's runner: `run(name, input, via, signal)` resolves to the run report. */
export function connectRunner(run) {
  connect(run);
}

/**
 * Resolves to `{ definitions, registration }` once every tool is registered
 * (`registration` as webmcp.js's registerTools gives it).
 */
export const registered = (async () => {
  let registration = { mode: 'none', reason: 'The registration did not finish.', registered: [], failed: [] };
  try {
    registration = await registerTools(definitions, async (name, input, signal) => (await runner)(name, input, 'agent (WebMCP)', signal));
  } finally {
    // Also shows the page, which style.css keeps unlaid-out until this is set.
    document.documentElement.dataset.toolsRegistered = String(registration.mode !== 'none');
    performance.mark('tools-registered');
  }
  // The engine starts now, so that its wasm is on the way before app.js runs;
  // app.js awaits the same start and reports its failure.
  import('./engine.js')
    .then((engine) => engine.start())
    .catch(() => {});
  return { definitions, registration };
})();
