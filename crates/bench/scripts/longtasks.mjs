// The page's main thread during each tool's largest call (issue 16: no tool
// call blocks the page's main thread for more than 50 ms, whatever its size).
// Usage: node longtasks.mjs ROOT [BENCH [NAMES]]. Prints one JSON line.
//
// BENCH is the bench binary (`-` or nothing: `cargo run --release -p bench --`);
// NAMES, a comma-separated list, measures only those tools (`your_data`,
// `your_data_long_cell`: only that Your data scenario below).
// `BENCH tool-args NAME` prints the arguments text of NAME's largest call
// (crates/bench/src/calls.rs `largest`), for every tool of
// www/generated/tools.json.
//
// The repository is served as scripts/page.mjs serves it (the allow-list and
// headers of crates/xtask/src/serve.rs), and Chromium is launched with the
// same flags but without native WebMCP: the page then installs its own
// registry (www/webmcp.js's fallback at document.modelContext), which MCP-B-
// style bridges call. Chromium's native executeTool marshals the input object
// on the main thread itself, which no page can avoid (tests/worker.test.mjs).
//
// Each tool gets a fresh page (its own context, so an empty ledger), waited
// for until it is ready (data-ready) and then idle for IDLE_MS. Its arguments
// text is parsed into an object in the page in an earlier task (the caller's
// work, not the page's); then the call
// `document.modelContext.executeTool(name, args)` is timed while the browser
// is traced. The figure is the longest task of the page's main thread
// (`RunTask` on `CrRendererMain`, its style, layout and paint included) that
// overlaps the window from just before the call until AFTER_MS after its
// answer, or, when its result's tables are still being drawn a slice at a time
// then (the result view `aria-busy`), until AFTER_MS after the last slice. The Long Tasks API ('longtask' entries, buffered off) is read over
// the same window too (`api_longest_ms`): it does not count the rendering
// update that follows a task (the layout of a large result), which the trace
// shows.
//
// Your data (issue 25): on a fresh page, with the measure (SMD) chosen, a CSV
// of the largest size Your data takes (`BENCH your-data-csv`: 20,000 rows, a
// few of them bad) is pasted into its text area (Chromium's insertText, as a
// paste inserts it), and the window runs until the view is shown (its status
// names the records), its next page of rows and then its rows that give no
// record are shown, plus AFTER_MS. The figure is the same: the longest task of
// the page's main thread in that window.
//
// Your data with a long cell (issue 29 item 8): the same, with a CSV of two rows
// whose first id is LONG_CELL_CHARS characters (4 Mi), until the view is shown
// (the engine's view carries the cell cut; laid out whole it held the page for
// about 2 s).
//
// For attribution, without the Performance panel: each listed task carries
// its largest parts from the trace (`Layout 449`, `HandlePostMessage 117`,
// `RunMicrotasks 92`, `MajorGC 14`); an init script wraps the page's Worker so
// that every message to and from the engine's worker is time-stamped (op and
// size); mutation observers stamp when the tool's result, the ledger row and
// the companion plot are drawn. A companion plot the page asks for within
// AFTER_MS of the answer is waited for (up to PLOT_WAIT_MS); its tasks are
// reported apart (`after_longest_ms`, with `plot_asked`), as a figure of their own
// against the same 50 ms (the plot offered, or drawn, after the answer). Our own reading of
// the answer (JSON.parse of its text) runs after the window, in a later task.

import { createServer } from 'node:http';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { join, normalize, extname, sep } from 'node:path';
import { chromium } from 'playwright-core';
import { HEADERS, TYPES } from './served.mjs';

const [root, benchArg, namesArg] = process.argv.slice(2);
if (!root) throw new Error('usage: node longtasks.mjs ROOT [BENCH [NAMES]]');
const only = namesArg ? new Set(namesArg.split(',')) : null;
const AFTER_MS = 100;
const IDLE_MS = 300;
const PLOT_WAIT_MS = 30000;
const PDF = '/benchmark-baseline.pdf';
// Each measured call is traced (what the Performance panel shows: tasks, layout, paint,
// GC); LONGTASKS_TRACE=DIR keeps the traces, as DIR/NAME.trace.json.
const TRACE = process.env.LONGTASKS_TRACE;
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.execute', 'blink.user_timing', 'toplevel'];
/** Tasks of at least this many ms are listed, with what took their time. */
const LISTED_MS = 20;

/**
 * The page's main-thread tasks (Chromium's `RunTask` on `CrRendererMain`, rendering
 * included) that overlap the window between the marks `longtasks-start` and
 * `longtasks-end`, and those after it until `longtasks-after` (the companion plot), each
 * of LISTED_MS or more with its start (ms after the call), duration and the largest parts
 * of it (`Layout 449`, `HandlePostMessage 139`, `FunctionCall engine.js:58 73`, ...).
 */
function mainThreadTasks(trace) {
  const events = Array.isArray(trace) ? trace : trace.traceEvents;
  const mark = (name) => events.find((e) => e.name === name && e.cat?.includes('blink.user_timing'));
  const start = mark('longtasks-start');
  const end = mark('longtasks-end');
  const after = mark('longtasks-after');
  if (!start || !end) throw new Error('the trace lacks the window\'s marks');
  const onMain = (e) => e.pid === start.pid && e.tid === start.tid;
  const main = events.filter((e) => onMain(e) && e.ph === 'X' && typeof e.dur === 'number');
  const ms = (us) => Math.round(us / 100) / 10;
  const describe = (task) => {
    const inside = main.filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur <= task.ts + task.dur && e.dur >= 5000);
    const label = (e) => {
      const data = e.args?.data ?? {};
      const where = data.url ? ` ${data.url.replace(/^https?:\/\/[^/]+/, '')}:${data.lineNumber ?? ''}` : data.functionName ? ` ${data.functionName}` : '';
      return `${e.name}${where} ${ms(e.dur)}`;
    };
    return {
      start: ms(task.ts - start.ts),
      duration: ms(task.dur),
      parts: inside.filter((e) => !['ThreadControllerImpl::RunTask', 'v8.callFunction'].includes(e.name)).map(label),
    };
  };
  const tasks = main.filter((e) => e.name === 'RunTask');
  const within = (from, to) => tasks.filter((t) => t.ts < to && t.ts + t.dur > from);
  const longest = (list) => ms(Math.max(0, ...list.map((t) => t.dur)));
  const listed = (list) => list.filter((t) => t.dur >= LISTED_MS * 1000).map(describe);
  const windowTasks = within(start.ts, end.ts);
  const afterTasks = after ? within(end.ts, after.ts).filter((t) => t.ts >= end.ts) : [];
  return {
    longest: longest(windowTasks),
    window: listed(windowTasks),
    afterLongest: longest(afterTasks),
    after: listed(afterTasks),
  };
}

function resolve(urlPath) {
  if (urlPath === '/' || urlPath === '/index.html') return join(root, 'index.html');
  if (urlPath === PDF) return join(root, PDF.slice(1));
  if (urlPath.startsWith('/www/')) {
    const file = normalize(join(root, decodeURIComponent(urlPath)));
    if (file.startsWith(join(root, 'www') + sep)) return file;
  }
  return null;
}

const notFound = new Set();
const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://localhost').pathname;
  const file = resolve(path);
  if (!file || !existsSync(file) || !statSync(file).isFile()) {
    notFound.add(path);
    res.writeHead(404, HEADERS).end();
    return;
  }
  res.writeHead(200, { ...HEADERS, 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${server.address().port}`;

/** The arguments text of `name`'s largest call, from the bench binary. */
function argsText(name) {
  const [command, args] = benchArg && benchArg !== '-' ? [benchArg, []] : ['cargo', ['run', '-q', '--release', '-p', 'bench', '--']];
  return execFileSync(command, [...args, 'tool-args', name], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** The CSV of the Your data scenario, from the bench binary. */
function yourDataCsv() {
  const [command, args] = benchArg && benchArg !== '-' ? [benchArg, []] : ['cargo', ['run', '-q', '--release', '-p', 'bench', '--']];
  return execFileSync(command, [...args, 'your-data-csv'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** How many records (or raw-data rows) the arguments hold. */
function recordsOf(text) {
  const args = JSON.parse(text);
  return (Array.isArray(args.records) ? args.records.length : 0) || (Array.isArray(args.data) ? args.data.length : 0);
}

// Installed before the page's scripts: time-stamps every message to and from
// the engine's worker (www/engine.js makes it with `new Worker`).
const watchWorkers = () => {
  const log = [];
  window.__workerLog = log;
  const size = (v) => (typeof v === 'string' ? v.length : v && typeof v === 'object' ? Object.values(v).reduce((n, x) => n + (typeof x === 'string' ? x.length : 0), 0) : 0);
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', ({ data }) => log.push({ at: performance.now(), dir: 'from worker', id: data?.id, chars: size(data?.value) }));
    }
    postMessage(message, ...rest) {
      log.push({ at: performance.now(), dir: 'to worker', id: message?.id, op: message?.op, chars: size(message) });
      return super.postMessage(message, ...rest);
    }
  };
};

// In the page: the measured call. The input was parsed into window.__input in
// an earlier evaluate (an earlier task).
const measure = async ([name, afterMs, plotWaitMs]) => {
  const input = window.__input;
  delete window.__input;
  await new Promise((resolve) => setTimeout(resolve, 0));
  const t0 = performance.now();
  const rel = (t) => Math.round((t - t0) * 10) / 10;
  const longTasks = [];
  const observer = new PerformanceObserver((list) => longTasks.push(...list.getEntries()));
  observer.observe({ type: 'longtask', buffered: false });
  // When the tool's result, the ledger row and the plot are drawn.
  const events = [];
  const article = document.getElementById(`tool-${name}`);
  const watch = (node, what, options) => {
    if (!node) return null;
    const m = new MutationObserver(() => events.push({ at: performance.now(), what }));
    m.observe(node, options);
    return m;
  };
  const mutations = [
    watch(article?.querySelector('pre.result'), 'result shown', { childList: true, characterData: true, subtree: true }),
    watch(document.getElementById('ledger-table'), 'ledger row', { childList: true, subtree: true }),
    watch(article?.querySelector('.plot-slot'), 'plot slot changed', { childList: true }),
  ];
  const logStart = window.__workerLog.length;
  performance.mark('longtasks-start');
  const started = performance.now();
  let text = null;
  let thrown = null;
  try {
    text = await document.modelContext.executeTool(name, input);
  } catch (err) {
    thrown = String(err);
  }
  const answered = performance.now();
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  // A large result's tables are drawn a slice at a time after the answer, its view
  // `aria-busy` until the last row is in (www/forms.js renderResultView): the window runs
  // until then, so that every slice counts.
  const drawing = () => article?.querySelector('.result-view[aria-busy]');
  if (drawing()) {
    const deadline = performance.now() + plotWaitMs;
    while (drawing() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    events.push({ at: performance.now(), what: drawing() ? 'result still drawing at the deadline' : 'result drawn' });
    await new Promise((resolve) => setTimeout(resolve, afterMs));
  }
  const windowEnd = performance.now();
  performance.mark('longtasks-end');
  // A companion plot asked for by now: wait for its answer and its drawing.
  const plotAsked = () => window.__workerLog.slice(logStart).find((m) => m.op === 'plot');
  let plotEnd = null;
  const asked = plotAsked();
  if (asked) {
    const deadline = performance.now() + plotWaitMs;
    while (performance.now() < deadline && !window.__workerLog.some((m) => m.dir === 'from worker' && m.id === asked.id)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    plotEnd = performance.now();
  }
  performance.mark('longtasks-after');
  // Entries not yet handed to the callbacks would be lost by disconnect().
  longTasks.push(...observer.takeRecords());
  observer.disconnect();
  for (const m of mutations) m?.disconnect();
  // Our own reading of the answer, after the observers have stopped, in a later task.
  await new Promise((resolve) => setTimeout(resolve, 0));
  let ok = false;
  let error = thrown;
  if (text !== null) {
    const result = JSON.parse(text);
    ok = !result.isError;
    if (result.isError) error = String(result.content?.[0]?.text ?? text).slice(0, 300);
  }
  const describe = (e) => ({
    start: rel(e.startTime),
    duration: Math.round(e.duration * 10) / 10,
    attribution: (e.attribution ?? []).map((a) => `${a.name} ${a.containerType} ${a.containerSrc || a.containerName || ''}`.trim()),
  });
  const inWindow = longTasks.filter((e) => e.startTime < windowEnd);
  const after = longTasks.filter((e) => e.startTime >= windowEnd);
  return {
    ok,
    error,
    call_ms: answered - started,
    plot_asked: Boolean(asked),
    api_longest_ms: Math.max(0, ...inWindow.map((e) => e.duration)),
    long_tasks: inWindow.map(describe),
    after_long_tasks: after.map(describe),
    visibility: document.visibilityState,
    answer_chars: text?.length ?? 0,
    events: [
      { at: rel(started), what: 'executeTool called' },
      { at: rel(answered), what: 'answer received' },
      ...events.map((e) => ({ at: rel(e.at), what: e.what })),
      ...window.__workerLog.slice(logStart).map((m) => ({ at: rel(m.at), what: `${m.dir} ${m.op ?? ''} #${m.id} ${m.chars} chars`.replace('  ', ' ') })),
      ...(plotEnd === null ? [] : [{ at: rel(plotEnd), what: 'plot waited for' }]),
    ].sort((a, b) => a.at - b.at),
  };
};

// In the page, before the paste: observers of the Your data scenario.
const yourDataStart = () => {
  const t0 = performance.now();
  const longTasks = [];
  const observer = new PerformanceObserver((list) => longTasks.push(...list.getEntries()));
  observer.observe({ type: 'longtask', buffered: false });
  const events = [];
  const watch = (id, what) => {
    const m = new MutationObserver(() => events.push({ at: performance.now(), what }));
    m.observe(document.getElementById(id), { childList: true, characterData: true, subtree: true });
    return m;
  };
  const mutations = [watch('your-data-status', 'status changed'), watch('your-data-table', 'rows drawn')];
  const logStart = window.__workerLog.length;
  window.__yourData = { t0, longTasks, observer, events, mutations, logStart };
  performance.mark('longtasks-start');
};

// In the page, after the paste: waits for the view, then (`paged`) its next page and its bad rows.
const yourDataFinish = async ([afterMs, paged]) => {
  const { t0, longTasks, observer, events, mutations, logStart } = window.__yourData;
  const { ROWS_PER_PAGE: ROWS } = await import('/www/your-data.js');
  const rel = (t) => Math.round((t - t0) * 10) / 10;
  const until = async (test, what) => {
    const deadline = performance.now() + 60000;
    while (!test()) {
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    events.push({ at: performance.now(), what });
  };
  const status = () => document.getElementById('your-data-status').textContent;
  const range = () => document.getElementById('your-data-range')?.textContent ?? '';
  let error = null;
  try {
    const rowsDrawn = () => document.querySelectorAll('#your-data-table tbody tr').length > 0;
    await until(() => / from \d+ rows/.test(status()) && (paged ? range() !== '' : rowsDrawn()), 'view shown');
    if (paged) {
      document.getElementById('your-data-next').click();
      await until(() => range().startsWith(`Rows ${ROWS + 1}`), 'next page shown');
      document.getElementById('your-data-errors-only').click();
      await until(() => /rows that give no record$/.test(range()), 'bad rows shown');
    }
  } catch (err) {
    error = String(err);
  }
  const done = performance.now();
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  const windowEnd = performance.now();
  performance.mark('longtasks-end');
  performance.mark('longtasks-after');
  longTasks.push(...observer.takeRecords());
  observer.disconnect();
  for (const m of mutations) m.disconnect();
  const inWindow = longTasks.filter((e) => e.startTime < windowEnd);
  return {
    ok: error === null,
    error,
    call_ms: done - t0,
    status: status(),
    rows_drawn: document.querySelectorAll('#your-data-table tbody tr').length,
    api_longest_ms: Math.max(0, ...inWindow.map((e) => e.duration)),
    long_tasks: inWindow.map((e) => ({ start: rel(e.startTime), duration: Math.round(e.duration * 10) / 10 })),
    events: [
      ...events.map((e) => ({ at: rel(e.at), what: e.what })),
      ...window.__workerLog.slice(logStart).map((m) => ({ at: rel(m.at), what: `${m.dir} ${m.op ?? ''} #${m.id} ${m.chars} chars`.replace('  ', ' ') })),
    ].sort((a, b) => a.at - b.at),
  };
};

/** A fresh page, ready and idle, recording its errors. */
async function freshPage(context, errors) {
  const page = await context.newPage();
  page.on('pageerror', (err) => errors.push(String(err)));
  await page.addInitScript(watchWorkers);
  await page.goto(`${origin}/`);
  await page.waitForSelector('html[data-ready="true"], #boot-error:not([hidden])', { state: 'attached', timeout: 30000 });
  const bootError = await page.$eval('#boot-error', (n) => (n.hidden ? null : n.textContent));
  if (bootError) throw new Error(`the page did not start: ${bootError}`);
  mode = await page.$eval('#webmcp-status', (n) => n.dataset.mode ?? null);
  await page.waitForTimeout(IDLE_MS);
  return page;
}

/** The characters of the long cell of the second Your data scenario. */
const LONG_CELL_CHARS = 4 * 1024 * 1024;

/** A CSV of two rows of SMD data whose first id is LONG_CELL_CHARS characters. */
function longCellCsv() {
  return `id,m1i,sd1i,n1i,m2i,sd2i,n2i\n${'x'.repeat(LONG_CELL_CHARS)},10,2,20,9,2,22\nshort,11,2,20,9,2,22\n`;
}

/**
 * A Your data scenario: `csv` pasted, its view shown, and (`paged`) its next page and bad
 * rows; `name` names it (and its trace).
 */
async function yourData(name, csv, paged) {
  process.stderr.write(`longtasks: ${name}\n`);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  try {
    const errors = [];
    const page = await freshPage(context, errors);
    await page.selectOption('#your-data-measure', 'SMD');
    // The CSV goes to the clipboard in an earlier task; the paste is the person's Ctrl+V.
    await page.evaluate((text) => navigator.clipboard.writeText(text), csv);
    await page.focus('#your-data-csv');
    await page.waitForTimeout(IDLE_MS);
    await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    await page.evaluate(yourDataStart);
    await page.keyboard.press('Control+V');
    const outcome = await page.evaluate(yourDataFinish, [AFTER_MS, paged]);
    const trace = await browser.stopTracing();
    if (TRACE) writeFileSync(join(TRACE, `${name}.trace.json`), trace);
    const tasks = mainThreadTasks(JSON.parse(trace.toString('utf8')));
    return {
      rows: csv.trimEnd().split('\n').length - 1,
      csv_bytes: Buffer.byteLength(csv),
      // A reduce, not Math.max(...cells): 140,000 arguments overflow Node's stack.
      longest_cell_chars: csv.split(/[\n,]/).reduce((most, cell) => Math.max(most, cell.length), 0),
      longest_ms: tasks.longest,
      tasks: tasks.window,
      ...outcome,
      page_errors: errors,
    };
  } finally {
    await context.close();
  }
}

const definitions = JSON.parse(readFileSync(join(root, 'www', 'generated', 'tools.json'), 'utf8'));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const results = [];
let mode = null;
let yourDataResult = null;
let longCellResult = null;
try {
  for (const { name } of definitions.filter((d) => !only || only.has(d.name))) {
    process.stderr.write(`longtasks: ${name}\n`);
    const text = argsText(name);
    const records = recordsOf(text);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const errors = [];
      const page = await freshPage(context, errors);
      await page.evaluate((t) => {
        window.__input = JSON.parse(t);
      }, text);
      await browser.startTracing(page, { categories: TRACE_CATEGORIES });
      const outcome = await page.evaluate(measure, [name, AFTER_MS, PLOT_WAIT_MS]);
      const trace = await browser.stopTracing();
      if (TRACE) writeFileSync(join(TRACE, `${name}.trace.json`), trace);
      const tasks = mainThreadTasks(JSON.parse(trace.toString('utf8')));
      results.push({
        tool: name,
        records,
        input_bytes: Buffer.byteLength(text),
        longest_ms: tasks.longest,
        tasks: tasks.window,
        after_longest_ms: tasks.afterLongest,
        after_tasks: tasks.after,
        ...outcome,
        page_errors: errors,
      });
    } finally {
      await context.close();
    }
  }
  if (!only || only.has('your_data')) {
    try {
      yourDataResult = await yourData('your_data', yourDataCsv(), true);
    } catch (err) {
      yourDataResult = { ok: false, error: String(err) };
    }
  }
  if (!only || only.has('your_data_long_cell')) {
    try {
      longCellResult = await yourData('your_data_long_cell', longCellCsv(), false);
    } catch (err) {
      longCellResult = { ok: false, error: String(err) };
    }
  }
} finally {
  await browser.close();
  server.close();
}
console.log(JSON.stringify({ mode, after_ms: AFTER_MS, page: 'fresh per tool', tools: results, your_data: yourDataResult, your_data_long_cell: longCellResult, not_found: [...notFound] }));
