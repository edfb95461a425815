// The page in headless Chromium with native WebMCP: bytes served, time from
// navigation start to all tools registered, and the executeTool round trip.
// Usage: node page.mjs ROOT [NAVIGATIONS] [CALLS]. Prints one JSON line.
//
// The repository is served the way `cargo xtask serve` serves it (same
// allow-list: /, /index.html, /benchmark-baseline.pdf, /www/...; same headers,
// no compression, `Cache-Control: no-cache`), from a server in this script so
// the bench does not depend on a build running on a fixed port. Gzip sizes are
// those of `gzip -6` of each served file, what a compressing server would send.

import { createServer } from 'node:http';
import { readFileSync, existsSync, statSync } from 'node:fs';
import { join, normalize, extname, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const [root, navArg, callArg] = process.argv.slice(2);
const NAVIGATIONS = Number(navArg ?? 20);
const CALLS = Number(callArg ?? 200);
const PDF = '/benchmark-baseline.pdf';
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'none'";
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
  '.json': 'application/json',
};

function resolve(urlPath) {
  if (urlPath === '/' || urlPath === '/index.html') return join(root, 'index.html');
  if (urlPath === PDF) return join(root, PDF.slice(1));
  if (urlPath.startsWith('/www/')) {
    const file = normalize(join(root, decodeURIComponent(urlPath)));
    if (file.startsWith(join(root, 'www') + sep)) return file;
  }
  return null;
}

let served = [];
const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://localhost').pathname;
  const file = resolve(path);
  const headers = {
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  };
  if (!file || !existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404, headers).end();
    served.push({ path, file: null, bytes: 0 });
    return;
  }
  const body = readFileSync(file);
  headers['content-type'] = TYPES[extname(file)] ?? 'application/octet-stream';
  res.writeHead(200, headers).end(body);
  served.push({ path, file, bytes: body.length });
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--enable-features=WebMCP',
  ],
});

// Records (performance.now(), i.e. ms since navigation start) when the page
// says its tools are registered: `data-tools-registered` on <html> if the page
// sets it, else the WebMCP status getting its `data-mode` (set right after
// registerTools resolves), and when it is ready (`data-ready`).
const observe = () => {
  window.__bench = {};
  new MutationObserver((mutations) => {
    for (const m of mutations) {
      const t = performance.now();
      const n = m.target;
      if (m.attributeName === 'data-tools-registered' && n === document.documentElement) window.__bench.tools ??= t;
      if (m.attributeName === 'data-mode' && n.id === 'webmcp-status') window.__bench.status ??= t;
      if (m.attributeName === 'data-ready' && n === document.documentElement) window.__bench.ready ??= t;
    }
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-tools-registered', 'data-mode', 'data-ready'] });
};

// One fresh browser context per navigation (a first visit: new renderer,
// empty caches), then a second navigation in the same context (a revisit: the
// renderer is up; this server sends no validators, so every file is fetched again).
async function visit(target) {
  await target.goto(url);
  await target.waitForFunction(() => window.__bench && window.__bench.ready !== undefined, null, { timeout: 20000 });
  return target.evaluate(async () => {
    const nav = performance.getEntriesByType('navigation')[0];
    return {
      tools: window.__bench.tools ?? window.__bench.status,
      ready: window.__bench.ready,
      mode: document.getElementById('webmcp-status')?.dataset.mode ?? null,
      count: document.modelContext ? (await document.modelContext.getTools()).length : 0,
      documentEnd: nav?.responseEnd,
      wasmStart: performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm'))?.startTime,
      wasmEnd: performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm'))?.responseEnd,
    };
  });
}

const first = [];
const again = [];
let firstServed = null;
let page = null;
let context = null;
for (let i = 0; i < NAVIGATIONS; i += 1) {
  if (context) await context.close();
  served = [];
  context = await browser.newContext();
  page = await context.newPage();
  await page.addInitScript(observe);
  first.push(await visit(page));
  if (firstServed === null) firstServed = served;
  again.push(await visit(page));
}
const { mode, count: toolCount } = first[first.length - 1];

// Round trip of the native WebMCP call, timed in the page after 5 warm-up calls
// (each call also appends to the page's audit ledger, so later calls see a longer one). Native executeTool
// takes the RegisteredTool from getTools(), found once as an agent bridge does.
const calls = await page.evaluate(async (n) => {
  const tool = (await document.modelContext.getTools()).find((t) => t.name === 'fit_random_effects');
  const once = () => document.modelContext.executeTool(tool, {});
  const first = JSON.parse(await once());
  for (let i = 0; i < 4; i += 1) await once();
  const times = [];
  for (let i = 0; i < n; i += 1) {
    const t = performance.now();
    await once();
    times.push(performance.now() - t);
  }
  // The same wasm call without WebMCP, the ledger or the DOM: the module the page loaded.
  const pkg = await import('/www/pkg/exemplar_wasm.js');
  const direct = [];
  for (let i = 0; i < n; i += 1) {
    const t = performance.now();
    pkg.callTool('fit_random_effects', '{}');
    direct.push(performance.now() - t);
  }
  return { times, direct, tau2: first.structuredContent?.tau2 ?? null };
}, CALLS);
await context.close();
await browser.close();
server.close();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(0.9 * (xs.length - 1))];

const files = new Map();
for (const s of firstServed) if (s.file) files.set(s.path, s);
const gz = (file) => gzipSync(readFileSync(file), { level: 6 }).length;
const entries = [...files.values()].map((s) => ({ path: s.path, raw: s.bytes, gzip: gz(s.file) }));
const sum = (xs, key) => xs.reduce((a, x) => a + x[key], 0);
const wasm = entries.filter((e) => e.path.endsWith('.wasm'));
const pdf = entries.filter((e) => e.path === PDF);
const assets = entries.filter((e) => e.path !== PDF);

console.log(
  JSON.stringify({
    navigations: NAVIGATIONS,
    mode,
    tools_registered: toolCount,
    tools_ms_median: median(first.map((v) => v.tools)),
    tools_ms_p90: p90(first.map((v) => v.tools)),
    ready_ms_median: median(first.map((v) => v.ready)),
    document_end_ms_median: median(first.map((v) => v.documentEnd)),
    wasm_start_ms_median: median(first.map((v) => v.wasmStart)),
    wasm_end_ms_median: median(first.map((v) => v.wasmEnd)),
    revisit_tools_ms_median: median(again.map((v) => v.tools)),
    revisit_wasm_end_ms_median: median(again.map((v) => v.wasmEnd)),
    wasm_raw: sum(wasm, 'raw'),
    wasm_gzip: sum(wasm, 'gzip'),
    assets_raw: sum(assets, 'raw'),
    assets_gzip: sum(assets, 'gzip'),
    pdf_raw: sum(pdf, 'raw'),
    pdf_gzip: sum(pdf, 'gzip'),
    not_found: firstServed.filter((s) => !s.file).map((s) => s.path),
    files: entries,
    tools_ms_all: first.map((v) => v.tools),
    calls: CALLS,
    call_ms_median: median(calls.times),
    call_ms_p90: p90(calls.times),
    call_ms_first10_median: median(calls.times.slice(0, 10)),
    call_ms_last10_median: median(calls.times.slice(-10)),
    direct_call_ms_median: median(calls.direct),
    tau2: calls.tau2,
  }),
);
