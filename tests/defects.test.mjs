// Regression tests of the hostile-input defects (issue 10) as an agent and a
// person meet them in the page: a trap of the engine, a stale plot, arguments
// JavaScript accepts but strict JSON refuses, direction controls in ids, and
// the registration that does not wait for the engine.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, agentCall, exportedLedger, launch, ledgerVerified, openPage, plotOf } from './helpers.mjs';

const EXTREME = [
  { id: 'a', yi: 0.1, vi: 0.01 },
  { id: 'big', yi: 1e308, vi: 1 },
  { id: 'small', yi: -1e308, vi: 1 },
];

test('a trap of the engine is an internal error, ledgered, and the next call works', async () => {
  const browser = await launch({ webmcp: true });
  try {
    const { page, errors } = await openPage(browser);
    await page.evaluate(async () => (await import('/www/engine.js')).armTrapForTest());
    const trapped = await agentCall(page, 'forest_plot', { exclude: ['s04'] });
    assert.equal(trapped.isError, true, JSON.stringify(trapped));
    assert.match(trapped.content[0].text, /^internal_error: internal error in tool forest_plot/);
    // Every tool works again, get_dataset included, on a fresh instance.
    const dataset = await agentCall(page, 'get_dataset', {});
    assert.equal(dataset.structuredContent.k, 19);
    const fit = await agentCall(page, 'fit_random_effects', {});
    assert.equal(fit.structuredContent.k, 19);
    // The failed call is in the ledger, as failed, and the chain still verifies.
    await ledgerVerified(page, 3);
    const ledger = JSON.parse(await exportedLedger(page));
    assert.deepEqual(
      ledger.map((e) => [e.tool, e.status]),
      [
        ['forest_plot', 'internal_error'],
        ['get_dataset', 'ok'],
        ['fit_random_effects', 'ok'],
      ],
    );
    // The trap's panic message reaches the console (the panic hook), nothing else does.
    assert.ok(errors.every((e) => /trapForTest|RuntimeError|unreachable/.test(e)), errors.join('\n'));
  } finally {
    await browser.close();
  }
});

test('a result area never shows another run: the plot slot is cleared and a plot error shown', async () => {
  const browser = await launch({ webmcp: true });
  try {
    const { page } = await openPage(browser);
    await agentCall(page, 'fit_random_effects', {});
    await plotOf(page, 'fit_random_effects');
    const extreme = await agentCall(page, 'fit_random_effects', { method: 'EE', records: EXTREME });
    // Whatever the fit says, the forest plot of the frozen dataset is gone.
    await page.waitForFunction(
      () => !document.querySelector('#tool-fit_random_effects figure.plot svg g.row[data-id="s01"]'),
      null,
      { timeout: 5000 },
    );
    if (!extreme.isError) {
      await page.waitForSelector('#tool-fit_random_effects .plot-slot .status.alarm', { timeout: 5000 });
      assert.match(await page.textContent('#tool-fit_random_effects .plot-slot'), /could not be drawn/);
    }
    const shown = await page.textContent('#tool-fit_random_effects pre.result');
    assert.equal(shown.includes('"k": 19'), false, 'the result area shows the new run');
  } finally {
    await browser.close();
  }
});

test('arguments JavaScript accepts but strict JSON refuses are invalid_json, and ledgered', async () => {
  // Through the page's own execute (the fallback registry passes inputs as
  // given; Chromium's native executeTool does not pass a 200-deep input on).
  const browser = await launch({ webmcp: false });
  try {
    const { page, errors } = await openPage(browser);
    const surrogate = await agentCall(page, 'fit_random_effects', { records: [{ id: '\ud800', yi: 0, vi: 1 }, { id: 'b', yi: 1, vi: 1 }] });
    assert.equal(surrogate.isError, true);
    assert.match(surrogate.content[0].text, /^invalid_json: /);
    const nested = JSON.parse(
      await page.evaluate(() => {
        let deep = [];
        for (let i = 0; i < 200; i += 1) deep = [deep];
        return document.modelContext.executeTool('fit_random_effects', { records: deep });
      }),
    );
    assert.match(nested.content[0].text, /^invalid_json: /);
    const duplicate = JSON.parse(
      await page.evaluate(() => document.modelContext.executeTool('fit_random_effects', '{"method":"DL","method":"REML"}')),
    );
    assert.match(duplicate.content[0].text, /^invalid_json: .*duplicate key "method"/);
    await ledgerVerified(page, 3);
    const ledger = JSON.parse(await exportedLedger(page));
    assert.deepEqual(ledger.map((e) => e.status), ['error', 'error', 'error']);
    assert.equal(typeof ledger[0].args, 'string', 'arguments that are not JSON are ledgered as their text');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('an input JavaScript cannot write as JSON (a BigInt, a cycle, a throwing toJSON) is refused as invalid_json, worded in Rust, and ledgered', async () => {
  // Through the page's own registry, which takes an agent's input object as given
  // (Chromium's native executeTool refuses such an input itself, before the page sees it).
  const browser = await launch({ webmcp: false });
  try {
    const { page, errors } = await openPage(browser);
    const answers = await page.evaluate(async () => {
      const cyclic = { method: 'DL' };
      cyclic.self = cyclic;
      // A large input is written a slice at a time: a BigInt deep in it.
      const records = Array.from({ length: 5000 }, (_, i) => ({ id: `r${i}`, yi: 0.1 * (i % 7), vi: 0.01 }));
      records[4321].vi = 1n;
      const inputs = [{ method: 1n }, cyclic, { records }, { toJSON: () => { throw new Error('no JSON here'); } }];
      const out = [];
      for (const input of inputs) out.push(JSON.parse(await document.modelContext.executeTool('fit_random_effects', input)));
      return out;
    });
    const reasons = ['Do not know how to serialize a BigInt', 'Converting circular structure to JSON', 'Do not know how to serialize a BigInt', 'no JSON here'];
    answers.forEach((answer, i) => {
      assert.equal(answer.isError, true, JSON.stringify(answer));
      assert.ok(
        answer.content[0].text.startsWith(`invalid_json: the arguments cannot be written as JSON text ("${reasons[i]}`),
        answer.content[0].text,
      );
    });
    // The page goes on, and every call, failed or not, is in the chain.
    const fit = await agentCall(page, 'fit_random_effects', {});
    assert.equal(fit.structuredContent.k, 19);
    await ledgerVerified(page, 5);
    const ledger = JSON.parse(await exportedLedger(page));
    assert.deepEqual(
      ledger.map((e) => [e.tool, e.status]),
      [...reasons.map(() => ['fit_random_effects', 'error']), ['fit_random_effects', 'ok']],
    );
    assert.match(ledger[0].args, /^\(arguments that cannot be written as JSON: "Do not know how to serialize a BigInt"\)$/);
    assert.equal(await page.$$eval('#ledger-table tbody tr', (rows) => rows.length), 5);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('direction controls in ids cannot reorder the page text around them', async () => {
  const browser = await launch({ webmcp: true });
  try {
    const { page } = await openPage(browser);
    const records = [
      { id: '\u202Eevil', yi: 0.1, vi: 0.02 },
      { id: 'b', yi: 0.3, vi: 0.03 },
      { id: 'c', yi: 0.2, vi: 0.04 },
    ];
    const out = await agentCall(page, 'refit_excluding', { exclude: ['\u202Eevil'], records });
    assert.ok(!out.isError, JSON.stringify(out));
    assert.deepEqual(out.structuredContent.excluded, ['\u202Eevil'], 'the agent gets the id as given');
    await ledgerVerified(page, 1);
    const shownArgs = await page.textContent('#ledger-table tbody tr td code.args');
    assert.equal(shownArgs.includes('\u202E'), false);
    assert.match(shownArgs, /\\u202e/);
    const shownResult = await page.textContent('#tool-refit_excluding pre.result');
    assert.equal(shownResult.includes('\u202E'), false);
    const isolation = await page.$eval('#ledger-table tbody tr td', (td) => getComputedStyle(td).unicodeBidi);
    assert.equal(isolation, 'isolate');
  } finally {
    await browser.close();
  }
});

test('the tools are registered before the engine loads, and a call made meanwhile waits for it', async () => {
  const browser = await launch({ webmcp: true });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    let release;
    const held = new Promise((resolve) => {
      release = resolve;
    });
    // Hold the wasm back: registration must not wait for it.
    await page.route('**/exemplar_wasm_bg.wasm', async (route) => {
      await held;
      await route.continue();
    });
    const wasmRequests = [];
    page.on('request', (r) => {
      if (r.url().endsWith('.wasm')) wasmRequests.push(r.url());
    });
    await page.goto(`${BASE_URL}/`);
    await page.waitForSelector('html[data-tools-registered="true"]', { state: 'attached', timeout: 10000 });
    const names = await page.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name));
    assert.ok(names.length >= 7);
    const tools = await page.evaluate(async () => document.modelContext.getTools());
    for (const t of tools) {
      assert.equal(t.annotations?.title, undefined, `${t.name}: title is not an annotation`);
    }
    const pending = page.evaluate(async () => {
      const tool = (await document.modelContext.getTools()).find((t) => t.name === 'fit_random_effects');
      return document.modelContext.executeTool(tool, {});
    });
    release();
    const fit = JSON.parse(await pending);
    assert.equal(fit.structuredContent.k, 19);
    // The first module, once (the whole engine follows once the page has started).
    assert.equal(wasmRequests.filter((u) => u.includes('/pkg/core/')).length, 1);
  } finally {
    await browser.close();
  }
});

test('an aborted call is cancelled, said so, and ledgered as cancelled', async () => {
  const browser = await launch({ webmcp: false });
  try {
    const { page } = await openPage(browser);
    const out = JSON.parse(
      await page.evaluate(() => {
        const controller = new AbortController();
        controller.abort();
        return document.modelContext.executeTool('leave_one_out', {}, { signal: controller.signal });
      }),
    );
    assert.equal(out.isError, true);
    assert.match(out.content[0].text, /^cancelled: the call of leave_one_out was cancelled/);
    await ledgerVerified(page, 1);
    const ledger = JSON.parse(await exportedLedger(page));
    assert.equal(ledger[0].status, 'cancelled');
  } finally {
    await browser.close();
  }
});
