// The exemplar engine as an ES module: the page's WebAssembly module (www/pkg/full, made by
// `cargo xtask build`), the tools' definitions (www/generated/tools.json) and plain calls.
// Assembled by `cargo xtask package` (crates/xtask/src/packaging.rs); docs/INSTALL.md.
import init, * as wasm from './wasm/exemplar_wasm.js';
import toolDefinitions from './tools.js';

const wasmUrl = new URL('./wasm/exemplar_wasm_bg.wasm', import.meta.url);

// Node reads the module from disk; a browser (or a bundler's output) fetches it.
if (typeof process !== 'undefined' && process.versions != null && process.versions.node != null) {
  const { readFile } = await import('node:fs/promises');
  await init({ module_or_path: await readFile(wasmUrl) });
} else {
  await init({ module_or_path: wasmUrl });
}

/** Every tool's definition, as the page registers it and `exemplar tools` prints it. */
export const tools = toolDefinitions;

/** A tool's error: `code` (e.g. `invalid_arguments`, `unknown_tool`) and the engine's message. */
export class ToolError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.name = 'ToolError';
    this.code = code;
    this.detail = message;
  }
}

/**
 * Runs tool `name` with `args` (an object, or its JSON text) exactly as the page and
 * `exemplar call` do, and returns its result; a tool error throws a `ToolError`.
 */
export function call(name, args = {}) {
  const text = typeof args === 'string' ? args : JSON.stringify(args);
  const outcome = JSON.parse(wasm.callTool(name, text));
  if (outcome.error) throw new ToolError(outcome.error.code, outcome.error.message);
  return outcome.ok;
}

/**
 * The raw outcome of a call as JSON text, `{"ok": result}` or `{"error": {code, message}}`:
 * for results of megabytes that a caller passes on without parsing. Never throws.
 */
export function callJson(name, argsJson = '{}') {
  return wasm.callTool(name, argsJson);
}

/** Whether the engine has tool `name`. */
export function hasTool(name) {
  return wasm.hasTool(name);
}

/** The rules every tool follows (an MCP server's `instructions`). */
export function instructions() {
  return wasm.instructions();
}

/** Versions, the frozen dataset's identity, the common prompt and the counts the page states. */
export function metadata() {
  return JSON.parse(wasm.metadata());
}

/** The frozen dataset's CSV, byte for byte. */
export function datasetCsv() {
  return wasm.datasetCsv();
}

/** Scores a raw answer to the benchmark's three tasks: the report, field by field. */
export function score(answer) {
  return JSON.parse(wasm.score(answer));
}

/**
 * A session as the page holds one: data handles (`load_data`) and the audit ledger.
 * `run(tool, argsJson, timeIso)` returns the page's report as JSON text, whose `response`
 * is what an agent receives (`structuredContent` and one text content).
 */
export const Session = wasm.Session;
