// Shared set-up for the browser end-to-end tests: Debian's Chromium through
// playwright-core, the page served by `cargo xtask test` (BASE_URL), and the
// `exemplar` command as the independent source of tool names and reference
// numbers.

import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:8000').replace(/\/$/, '');
export const ORIGIN = new URL(BASE_URL).origin;
export const ARTIFACTS = process.env.ARTIFACTS_DIR ?? join(process.cwd(), 'artifacts');
mkdirSync(ARTIFACTS, { recursive: true });

export { launchChromium as launch } from '../crates/xtask/bridge/chromium.mjs';

/**
 * A fresh context and page, recording every request and every page error,
 * with the page loaded and booted.
 */
export async function openPage(browser, { viewport } = {}) {
  const context = await browser.newContext({ viewport: viewport ?? { width: 1280, height: 900 }, acceptDownloads: true });
  const requests = [];
  const errors = [];
  context.on('request', (request) => requests.push(request.url()));
  const page = await context.newPage();
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  await load(page);
  return { context, page, requests, errors };
}

export async function load(page, how = 'goto') {
  if (how === 'reload') await page.reload();
  else await page.goto(`${BASE_URL}/`);
  await page.waitForSelector('html[data-ready="true"], #boot-error:not([hidden])', { state: 'attached', timeout: 20000 });
  const bootError = await page.$eval('#boot-error', (n) => (n.hidden ? null : n.textContent));
  if (bootError) throw new Error(bootError);
}

/**
 * How to start the `exemplar` command with `args`: EXEMPLAR_BIN (set by `cargo xtask
 * test`), or through cargo.
 */
export function exemplarCommand(...args) {
  const bin = process.env.EXEMPLAR_BIN;
  return bin ? { command: bin, args } : { command: 'cargo', args: ['run', '-q', '-p', 'exemplar-cli', '--', ...args] };
}

/** Runs the `exemplar` command and returns its stdout. */
export function exemplar(...args) {
  return exemplarWithInput('', ...args);
}

/** Runs the `exemplar` command with `input` on its stdin and returns its stdout. */
export function exemplarWithInput(input, ...args) {
  const { command, args: argv } = exemplarCommand(...args);
  return execFileSync(command, argv, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Scores an answer text with `exemplar score -` and returns the report. */
export const scoreWithCli = (answerText) => JSON.parse(exemplarWithInput(answerText, 'score', '-'));

/** The reference answer, from the engine through the CLI. */
export const reference = () => JSON.parse(exemplar('reference'));

/** The tool names the CLI knows, in order. */
export const cliToolNames = () => JSON.parse(exemplar('tools')).map((t) => t.name);

/** Calls a tool the way an agent bridge does: discover, then executeTool. */
export async function agentCall(page, name, input) {
  const text = await page.evaluate(
    async ([toolName, toolInput]) => {
      const tools = await document.modelContext.getTools();
      const tool = tools.find((t) => t.name === toolName);
      if (!tool) throw new Error(`no tool ${toolName}`);
      return document.modelContext.executeTool(tool, toolInput);
    },
    [name, input],
  );
  return JSON.parse(text);
}

/** The answer an agent builds from the three tool results. */
export function answerFrom(fit, refit, egger) {
  const pick = (r) => ({ k: r.k, estimate: r.estimate, ci_lower: r.ci_lower, ci_upper: r.ci_upper, p: r.p });
  return {
    overall: pick(fit),
    exclude_s04: { ...pick(refit), excluded: refit.excluded },
    bias: { egger_p: egger.egger_p, rule_outcome: egger.rule_outcome },
  };
}

export async function scoreAnswer(page, condition, text) {
  await page.fill(`#answer-${condition}`, text);
  await page.click(`#score-${condition}`);
  return (await page.textContent(`#result-${condition} .verdict`)).trim();
}

/** The failing rows of a score report table: their field paths. */
export function failingFields(page, condition) {
  return page.$$eval(`#result-${condition} table.report tbody tr`, (rows) =>
    rows.filter((r) => r.cells[4].textContent.trim() !== 'pass').map((r) => r.cells[0].textContent.trim()),
  );
}

/**
 * Waits until the ledger's status says its chain of `n` entries verified (the
 * page verifies shortly after a run, not during it) and returns the text.
 */
export async function ledgerVerified(page, n) {
  await page.waitForFunction(
    (want) => document.getElementById('ledger-status').dataset.verifiedLength === String(want),
    n,
    { timeout: 5000 },
  );
  return page.textContent('#ledger-status');
}

/** Waits for the plot drawn beside a tool's result and returns its <svg> handle. */
export async function plotOf(page, toolName) {
  return page.waitForSelector(`#tool-${toolName} figure.plot svg`, { timeout: 15000 });
}

/** Exports the audit ledger through its button and returns the entries. */
export async function exportedLedger(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#ledger-export')]);
  const stream = await download.createReadStream();
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

export async function storageIsEmpty(page, context) {
  const inPage = await page.evaluate(async () => ({
    localStorage: localStorage.length,
    sessionStorage: sessionStorage.length,
    indexedDB: (await indexedDB.databases()).length,
    cacheStorage: (await caches.keys()).length,
    cookie: document.cookie,
  }));
  return { ...inPage, cookies: (await context.cookies()).length };
}

/**
 * The text of a tool's result area once its run has finished (runs go through the engine's
 * worker, so the area says "Running…" meanwhile).
 */
export async function resultOf(page, toolName) {
  const selector = `#tool-${toolName} pre.result`;
  // The form's button is disabled from the submit (synchronously, on the click) until the run
  // ends: until then the area may still hold an earlier result, shown before "Running…".
  const button = `#tool-${toolName} button[type="submit"]`;
  const handle = await page.waitForFunction(
    ([sel, btn]) => {
      const text = document.querySelector(sel)?.textContent ?? '';
      const running = document.querySelector(btn)?.disabled ?? false;
      return !running && text !== '' && text !== 'Running…' ? text : null;
    },
    [selector, button],
    { timeout: 10000 },
  );
  return handle.jsonValue();
}

/**
 * Opens a tool's form, chooses "your data" (or not), fills `fields` ({name: value}, selects by
 * option value), runs it and returns its result area's text.
 */
export async function runForm(page, tool, { yours = true, fields = {} } = {}) {
  const article = `#tool-${tool}`;
  if (!(await page.$eval(`${article} details.tool-details`, (d) => d.open))) await page.click(`${article} details.tool-details > summary`);
  if (yours) await page.check(`${article} input[type="radio"][value="yours"]`);
  for (const [name, value] of Object.entries(fields)) {
    const selector = `${article} [name="${name}"]`;
    if (await page.$eval(selector, (n) => n.tagName === 'SELECT')) await page.selectOption(selector, value);
    else await page.fill(selector, value);
  }
  // A fresh result: the area is emptied of the last run's text first.
  await page.$eval(`${article} pre.result`, (pre) => {
    pre.textContent = '';
  });
  await page.click(`${article} button[type="submit"]`);
  return resultOf(page, tool);
}
