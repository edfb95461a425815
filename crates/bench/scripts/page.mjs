// The page in headless Chromium with native WebMCP, side by side with a bare
// page that registers the same definitions with no-op tools (issue 11):
// time from navigation start to every tool registered, for both; bytes
// fetched before our tools are registered; the first tool result; all bytes
// served; the executeTool round trip.
// Usage: node page.mjs ROOT [NAVIGATIONS] [CALLS]. Prints one JSON line.
//
// The repository is served the way `cargo xtask serve` serves it (same
// allow-list: /, /index.html, /benchmark-baseline.pdf, /www/...; the headers
// of crates/xtask/src/serve.rs `security_headers`, no compression), from a
// server in this script so the bench does not depend on a build running on a
// fixed port. The bare page (bare-page.mjs) is served from memory at /bare/
// by the same server with the same headers. Gzip sizes are those of
// `gzip -6` of each served body, what a compressing server would send.

import { createServer } from 'node:http';
import { readFileSync, existsSync, statSync } from 'node:fs';
import { join, normalize, extname, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { barePage } from './bare-page.mjs';
import { HEADERS, TYPES } from './served.mjs';

const [root, navArg, callArg, toolArg] = process.argv.slice(2);
const NAVIGATIONS = Number(navArg ?? 20);
const CALLS = Number(callArg ?? 200);
const PDF = '/benchmark-baseline.pdf';
// The tool whose first result is timed: named by the bench (the registry's entry).
const FIRST_TOOL = toolArg;
if (!FIRST_TOOL) throw new Error('usage: node page.mjs ROOT NAVIGATIONS CALLS TOOL');

const bare = barePage(readFileSync(join(root, 'www', 'generated', 'tools.json'), 'utf8'));
const definitionCount = JSON.parse(readFileSync(join(root, 'www', 'generated', 'tools.json'), 'utf8')).length;

function resolve(urlPath) {
  if (urlPath === '/' || urlPath === '/index.html') return join(root, 'index.html');
  if (urlPath === PDF) return join(root, PDF.slice(1));
  if (urlPath.startsWith('/www/')) {
    const file = normalize(join(root, decodeURIComponent(urlPath)));
    if (file.startsWith(join(root, 'www') + sep)) return file;
  }
  return null;
}

/** The body the server sends for a path, or null (404). */
function bodyOf(path) {
  const virtual = bare.get(path);
  if (virtual) return virtual;
  const file = resolve(path);
  if (!file || !existsSync(file) || !statSync(file).isFile()) return null;
  return { type: TYPES[extname(file)] ?? 'application/octet-stream', body: readFileSync(file) };
}

const gzipCache = new Map();
/** Raw and gzip -6 bytes of what the server sends for a path (0 for a 404). */
function sizeOf(path) {
  if (!gzipCache.has(path)) {
    const found = bodyOf(path);
    gzipCache.set(path, found ? { raw: found.body.length, gzip: gzipSync(found.body, { level: 6 }).length } : { raw: 0, gzip: 0 });
  }
  return gzipCache.get(path);
}

let served = [];
const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://localhost').pathname;
  const found = bodyOf(path);
  if (!found) {
    res.writeHead(404, HEADERS).end();
    served.push({ path, found: false, at: performance.timeOrigin + performance.now() });
    return;
  }
  res.writeHead(200, { ...HEADERS, 'content-type': found.type }).end(found.body);
  // When the request arrived (ms since the epoch, as the page's timeOrigin + mark is): a
  // worker's requests are not in the page's Resource Timing, but they are here.
  served.push({ path, found: true, at: performance.timeOrigin + performance.now() });
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${server.address().port}`;

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

// Installed before the page's scripts run. As soon as the page says its
// tools are registered (`html[data-tools-registered]`, set together with the
// `tools-registered` mark), it calls FIRST_TOOL as an agent would (native
// executeTool takes a RegisteredTool from getTools(), not a name) and
// records when the result arrives (performance.now(): ms since navigation
// start), and whether it was a success. Only on our page: the bare page's
// tools do nothing.
const callOnRegistration = (toolName) => {
  window.__bench = {};
  new MutationObserver(() => {
    const root = document.documentElement;
    if (root.hasAttribute('data-ready')) window.__bench.ready ??= performance.now();
    if (!root.hasAttribute('data-tools-registered') || window.__bench.called !== undefined) return;
    window.__bench.called = performance.now();
    document.modelContext
      .getTools()
      .then((tools) => document.modelContext.executeTool(tools.find((t) => t.name === toolName), {}))
      .then((text) => {
        const result = JSON.parse(text);
        window.__bench.result = performance.now();
        window.__bench.ok = !result.isError && result.structuredContent?.k !== undefined;
        if (!window.__bench.ok) window.__bench.error = text.slice(0, 300);
      })
      .catch((err) => {
        window.__bench.result = performance.now();
        window.__bench.ok = false;
        window.__bench.error = String(err);
      });
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-tools-registered', 'data-ready'] });
};

/** What the page itself says after a navigation: the mark, the tools, every request it started. */
const pageFacts = async () => {
  const mark = performance.getEntriesByName('tools-registered')[0]?.startTime ?? null;
  const nav = performance.getEntriesByType('navigation')[0];
  const resources = performance.getEntriesByType('resource').map((e) => ({ url: e.name, start: e.startTime, end: e.responseEnd }));
  return {
    mark,
    timeOrigin: performance.timeOrigin,
    mode: document.getElementById('webmcp-status')?.dataset.mode ?? null,
    count: document.modelContext ? (await document.modelContext.getTools()).length : 0,
    documentEnd: nav?.responseEnd,
    domInteractive: nav?.domInteractive,
    // The document's own request starts at 0.
    requests: [{ url: location.href, start: 0, end: nav?.responseEnd }, ...resources],
    bench: window.__bench ?? {},
  };
};

/** One first visit in a fresh context (new renderer, empty caches); `then(page)` runs before the context closes. */
async function visit(path, { ours, then }) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    if (ours) await page.addInitScript(callOnRegistration, FIRST_TOOL);
    await page.goto(origin + path);
    try {
      await page.waitForFunction(
        (isOurs) =>
          performance.getEntriesByName('tools-registered').length > 0 &&
          (!isOurs || (document.documentElement.dataset.ready !== undefined && window.__bench?.result !== undefined)),
        ours,
        { timeout: 20000 },
      );
    } catch (err) {
      throw new Error(`${path}: the page did not register its tools${ours ? ', answer a call and get ready' : ''} (${errors.join('; ') || err.message})`);
    }
    const facts = await page.evaluate(pageFacts);
    return { facts, after: then ? await then(page) : null };
  } finally {
    await context.close();
  }
}

// Round trip of the native WebMCP call, timed in the page after 5 warm-up
// calls (each call also appends to the page's audit ledger, so later calls
// see a longer one). Native executeTool takes the RegisteredTool from
// getTools(), found once as an agent bridge does.
const roundTrips = (page) =>
  page.evaluate(
    async ([n, toolName]) => {
      const tool = (await document.modelContext.getTools()).find((t) => t.name === toolName);
      const once = () => document.modelContext.executeTool(tool, {});
      const first = JSON.parse(await once());
      for (let i = 0; i < 4; i += 1) await once();
      const times = [];
      for (let i = 0; i < n; i += 1) {
        const t = performance.now();
        await once();
        times.push(performance.now() - t);
      }
      // The same wasm call without WebMCP, the ledger or the DOM: the module the
      // page loaded. Timed as a whole (performance.now() has a 0.1 ms grain here).
      const pkg = await import('/www/pkg/core/exemplar_wasm.js');
      const t = performance.now();
      for (let i = 0; i < n; i += 1) pkg.callTool(toolName, '{}');
      const direct = (performance.now() - t) / n;
      return { times, direct, tau2: first.structuredContent?.tau2 ?? null };
    },
    [CALLS, FIRST_TOOL],
  );

const paths = (requests) => requests.map((r) => ({ ...r, path: new URL(r.url).pathname }));
/**
 * Every request made before the tools were registered: those the page's Resource Timing
 * starts before the mark, and those the server received before it (which include the
 * engine worker's own requests, absent from the page's timeline).
 */
const before = (facts) => {
  const registeredAt = facts.timeOrigin + facts.mark;
  const byServer = (facts.served ?? []).filter((s) => s.found && s.at < registeredAt).map((s) => ({ path: s.path }));
  return [...paths(facts.requests).filter((r) => r.start < facts.mark), ...byServer];
};
const bytes = (list) =>
  [...new Set(list.map((r) => r.path))].reduce(
    (acc, p) => {
      const s = sizeOf(p);
      return { raw: acc.raw + s.raw, gzip: acc.gzip + s.gzip };
    },
    { raw: 0, gzip: 0 },
  );

// Alternating, ours first then bare, each in its own fresh context, so load
// on the machine falls on both alike. The round trips are timed on the last
// of our pages, before its bare twin.
const ours = [];
const bares = [];
let firstServed = null;
let calls = null;
for (let i = 0; i < NAVIGATIONS; i += 1) {
  served = [];
  const visited = await visit('/', { ours: true, then: i === NAVIGATIONS - 1 ? roundTrips : null });
  ours.push({ ...visited.facts, served: [...served] });
  calls = visited.after ?? calls;
  if (firstServed === null) firstServed = [...served];
  bares.push((await visit('/bare/', { ours: false })).facts);
}
await browser.close();
server.close();
const { mode, count: toolCount } = ours[ours.length - 1];
const bareCount = bares[bares.length - 1].count;
const failedFirst = ours.filter((f) => !f.bench.ok);
if (failedFirst.length) {
  throw new Error(`the first ${FIRST_TOOL} call failed on ${failedFirst.length} navigations: ${failedFirst[0].bench.error ?? 'an error result'}`);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(0.9 * (xs.length - 1))];

const entries = [...new Set(firstServed.filter((s) => s.found).map((s) => s.path))].map((path) => ({ path, ...sizeOf(path) }));
const sum = (xs, key) => xs.reduce((a, x) => a + x[key], 0);
// The module the page fetches first (it answers the first calls), and the whole engine it
// loads once the page has started.
const wasm = entries.filter((e) => e.path.endsWith('/pkg/core/exemplar_wasm_bg.wasm'));
const wasmFull = entries.filter((e) => e.path.endsWith('/pkg/full/exemplar_wasm_bg.wasm'));
const pdf = entries.filter((e) => e.path === PDF);
const assets = entries.filter((e) => e.path !== PDF);
const early = ours.map((f) => bytes(before(f)));
// Every path requested before registration, with the number of navigations that did.
const earlyPaths = {};
for (const f of ours) for (const p of new Set(before(f).map((r) => r.path))) earlyPaths[p] = (earlyPaths[p] ?? 0) + 1;
// Requests the server answered on our first navigation that the page's Resource Timing does not list.
const timed = new Set(ours.flatMap((f) => paths(f.requests).map((r) => r.path)));
const untimed = [...new Set(firstServed.map((s) => s.path))].filter((p) => !timed.has(p));
const oursTools = ours.map((f) => f.mark);
const wasmOf = (f) => f.requests.find((r) => r.url.endsWith('/pkg/core/exemplar_wasm_bg.wasm')) ?? { start: NaN, end: NaN };
const bareTools = bares.map((f) => f.mark);

console.log(
  JSON.stringify({
    navigations: NAVIGATIONS,
    mode,
    definitions: definitionCount,
    tools_registered: toolCount,
    bare_tools_registered: bareCount,
    tools_ms_median: median(oursTools),
    tools_ms_p90: p90(oursTools),
    bare_tools_ms_median: median(bareTools),
    bare_tools_ms_p90: p90(bareTools),
    tools_over_bare_ratio: median(oursTools) / median(bareTools),
    first_result_ms_median: median(ours.map((f) => f.bench.result)),
    first_result_ms_p90: p90(ours.map((f) => f.bench.result)),
    first_call_ms_median: median(ours.map((f) => f.bench.called)),
    ready_ms_median: median(ours.map((f) => f.bench.ready)),
    document_end_ms_median: median(ours.map((f) => f.documentEnd)),
    dom_interactive_ms_median: median(ours.map((f) => f.domInteractive)),
    bare_dom_interactive_ms_median: median(bares.map((f) => f.domInteractive)),
    wasm_start_ms_median: median(ours.map((f) => wasmOf(f).start)),
    wasm_end_ms_median: median(ours.map((f) => wasmOf(f).end)),
    before_tools_gzip_median: median(early.map((b) => b.gzip)),
    before_tools_gzip_max: Math.max(...early.map((b) => b.gzip)),
    before_tools_raw_median: median(early.map((b) => b.raw)),
    before_tools_paths: earlyPaths,
    bare_bytes_gzip: bytes(paths(bares[0].requests)).gzip,
    wasm_raw: sum(wasm, 'raw'),
    wasm_gzip: sum(wasm, 'gzip'),
    wasm_full_raw: sum(wasmFull, 'raw'),
    wasm_full_gzip: sum(wasmFull, 'gzip'),
    assets_raw: sum(assets, 'raw'),
    assets_gzip: sum(assets, 'gzip'),
    pdf_raw: sum(pdf, 'raw'),
    pdf_gzip: sum(pdf, 'gzip'),
    not_found: firstServed.filter((s) => !s.found).map((s) => s.path),
    untimed_requests: untimed,
    files: entries,
    tools_ms_all: oursTools,
    bare_tools_ms_all: bareTools,
    first_result_ms_all: ours.map((f) => f.bench.result),
    calls: CALLS,
    call_ms_median: median(calls.times),
    call_ms_p90: p90(calls.times),
    call_ms_first10_median: median(calls.times.slice(0, 10)),
    call_ms_last10_median: median(calls.times.slice(-10)),
    direct_call_ms_mean: calls.direct,
    tau2: calls.tau2,
  }),
);
