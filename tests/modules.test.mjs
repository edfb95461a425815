// The page's two wasm modules (www/pkg/core, www/pkg/full) as an agent meets
// them: the first module answers the benchmark's calls without waiting for
// the whole engine; a call that the first module lacks waits for the whole
// engine and is answered by it; the visit's ledger is one chain across both.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, agentCall, exportedLedger, launch, ledgerVerified, runForm } from './helpers.mjs';

/**
 * A fresh context and page, not yet navigated (a test routes the engine's
 * requests first), recording the page's errors.
 */
async function unloadedPage(browser) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  return { page, errors };
}

test('the first module answers the benchmark; another tool waits for the whole engine; one ledger', async () => {
  const browser = await launch({ webmcp: true });
  try {
    const { page, errors } = await unloadedPage(browser);
    let release;
    const held = new Promise((resolve) => {
      release = resolve;
    });
    // The whole engine is held back until the test lets it through.
    let fullRequested = false;
    await page.route('**/pkg/full/exemplar_wasm_bg.wasm', async (route) => {
      fullRequested = true;
      await held;
      await route.continue();
    });
    await page.goto(`${BASE_URL}/`);
    await page.waitForSelector('html[data-tools-registered="true"]', { state: 'attached', timeout: 10000 });

    // The benchmark's three tasks, answered while the whole engine is held.
    const fit = await agentCall(page, 'fit_random_effects', {});
    assert.equal(fit.structuredContent.k, 19);
    const refit = await agentCall(page, 'refit_excluding', { exclude: ['s04'] });
    assert.deepEqual(refit.structuredContent.excluded, ['s04']);
    const egger = await agentCall(page, 'egger_test', {});
    assert.equal(typeof egger.structuredContent.egger_p, 'number');

    // A tool of the whole engine waits for it, and is answered once it arrives.
    let settled = false;
    const loo = agentCall(page, 'leave_one_out', {}).then((r) => {
      settled = true;
      return r;
    });
    await page.waitForTimeout(300);
    assert.equal(settled, false, 'leave_one_out answered before the whole engine had loaded');
    assert.equal(fullRequested, true, 'the whole engine was not requested');
    release();
    const out = await loo;
    assert.equal(out.isError, undefined, JSON.stringify(out).slice(0, 300));
    assert.equal(out.structuredContent.results.length, 19);

    // One chain across both modules, in call order.
    await page.waitForSelector('html[data-ready="true"]', { state: 'attached', timeout: 20000 });
    await ledgerVerified(page, 4);
    const ledger = JSON.parse(await exportedLedger(page));
    assert.deepEqual(
      ledger.map((e) => [e.seq, e.tool, e.status]),
      [
        [1, 'fit_random_effects', 'ok'],
        [2, 'refit_excluding', 'ok'],
        [3, 'egger_test', 'ok'],
        [4, 'leave_one_out', 'ok'],
      ],
    );
    // The plots, drawn by the whole engine, came for the benchmark's runs too.
    await page.waitForSelector('#tool-egger_test figure.plot svg', { state: 'attached', timeout: 10000 });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('when the whole engine cannot be loaded, a call that needs it is an error that says so, ledgered; a form says so, unledgered; the benchmark goes on; a later call loads it', async () => {
  const browser = await launch({ webmcp: true });
  try {
    const { page, errors } = await unloadedPage(browser);
    // The whole module's wasm fails to arrive until the test lets it.
    let blocked = true;
    await page.route('**/pkg/full/exemplar_wasm_bg.wasm', (route) => (blocked ? route.abort('failed') : route.continue()));
    await page.goto(`${BASE_URL}/`);
    await page.waitForSelector('html[data-tools-registered="true"]', { state: 'attached', timeout: 10000 });

    const forest = await agentCall(page, 'forest_plot', {});
    assert.equal(forest.isError, true);
    assert.match(forest.content[0].text, /^internal_error: internal error in tool forest_plot: the part of the engine it needs could not be loaded \(".+"\); this call has no result, and the benchmark's tools still work$/);
    const fit = await agentCall(page, 'fit_random_effects', {});
    assert.equal(fit.structuredContent.k, 19);
    // Your data needs the whole engine too: it says why it is not there, and offers to try again.
    await page.waitForSelector('html[data-ready]', { state: 'attached', timeout: 15000 });
    assert.match(await page.textContent('#your-data-body .status.alarm'), /The whole engine could not be loaded/);
    // A benchmark tool's run works; its plot, in the whole engine, is an error the engine words.
    await agentCall(page, 'fit_random_effects', {});
    await page.waitForSelector('#tool-fit_random_effects .plot-slot .status.alarm', { timeout: 10000 });
    assert.match(await page.textContent('#tool-fit_random_effects .plot-slot'), /^The plot could not be drawn: internal_error: \S/);

    // A form is read by the whole engine: the form says that it could not be loaded, and
    // nothing is run or ledgered.
    assert.match(
      await runForm(page, 'fit_random_effects', { yours: false }),
      /^Not run: the form is read by the whole engine, which could not be loaded \(.+\)$/,
    );
    assert.equal(await page.$eval('#tool-fit_random_effects button[type="submit"]', (b) => b.disabled), false);

    blocked = false;
    const again = await agentCall(page, 'forest_plot', {});
    assert.equal(again.isError, undefined, JSON.stringify(again).slice(0, 300));
    assert.match(again.structuredContent.svg, /^<svg/);

    await page.click('#your-data-body button:has-text("Try again")');
    await page.waitForSelector('#your-data-csv', { timeout: 10000 });

    // Once the whole engine is there, the form is read and run.
    assert.equal(JSON.parse(await runForm(page, 'fit_random_effects', { yours: false })).k, 19);

    await ledgerVerified(page, 5);
    const entries = JSON.parse(await exportedLedger(page));
    assert.deepEqual(
      entries.map((e) => [e.tool, e.status]),
      [
        ['forest_plot', 'internal_error'],
        ['fit_random_effects', 'ok'],
        ['fit_random_effects', 'ok'],
        ['forest_plot', 'ok'],
        ['fit_random_effects', 'ok'],
      ],
    );
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
