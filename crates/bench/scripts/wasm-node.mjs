// The shipped wasm package (www/pkg, `wasm-bindgen --target web`, after
// wasm-opt) under Node: callTool(TOOL, "{}") timed with the same harness as
// the native figures (warm-up, batches of >= 1 ms, median); the bench names
// TOOL through the registry's entry.
// Usage: node wasm-node.mjs PKG_DIR BUDGET_MS TOOL. Prints one JSON line.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [pkgDir, budgetArg, tool] = process.argv.slice(2);
if (!tool) throw new Error('usage: node wasm-node.mjs PKG_DIR BUDGET_MS TOOL');
const budgetMs = Number(budgetArg ?? 1500);
const pkg = await import(pathToFileURL(join(pkgDir, 'exemplar_wasm.js')).href);
pkg.initSync({ module: readFileSync(join(pkgDir, 'exemplar_wasm_bg.wasm')) });

const call = () => pkg.callTool(tool, '{}');
const first = JSON.parse(call());
if (!('ok' in first)) throw new Error(`callTool failed: ${JSON.stringify(first)}`);

function time(fn, budget, minBatches) {
  const start = performance.now();
  let calls = 0;
  let sink = 0;
  do {
    sink += fn().length;
    calls += 1;
  } while (performance.now() - start < budget / 10);
  const perCall = (performance.now() - start) / calls;
  const batchMs = Math.max((budget * 0.9) / 50, 1);
  const perBatch = Math.max(1, Math.floor(batchMs / perCall));
  const end = performance.now() + budget * 0.9;
  const samples = [];
  while (samples.length < minBatches || (performance.now() < end && samples.length < 2000)) {
    const t = performance.now();
    for (let i = 0; i < perBatch; i += 1) sink += fn().length;
    samples.push(((performance.now() - t) * 1e6) / perBatch);
  }
  samples.sort((a, b) => a - b);
  return { median_ns: samples[Math.floor(samples.length / 2)], batches: samples.length, per_batch: perBatch, sink };
}

const t = time(call, budgetMs, 20);
console.log(JSON.stringify({ median_ns: t.median_ns, batches: t.batches, calls_per_batch: t.per_batch, tau2: first.ok.tau2, node: process.version }));
