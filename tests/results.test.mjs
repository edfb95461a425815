// Results that people and agents can read (issue 21 items 2 and 4): a form's result is a
// table of values rounded as metafor prints them, with the JSON (every digit) folded below
// and offered whole; a plot tool run from its form draws its picture; the description an
// agent reads is folded under the form; and an agent hands its records once (load_data)
// and names them by their handle in later WebMCP calls.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ARTIFACTS, agentCall, launch, openPage, resultOf } from './helpers.mjs';

/** The value of row `name` of the first table in a tool's result view. */
const viewValue = (page, tool, name) =>
  page.$eval(
    `#tool-${tool} .result-view table`,
    (table, wanted) => [...table.tBodies[0].rows].find((r) => r.cells[0].textContent === wanted)?.cells[1].textContent,
    name,
  );

test('a fit run from its form reads as a table rounded as metafor prints it, the JSON folded and offered whole', async () => {
  const browser = await launch({ webmcp: false });
  try {
    const { page, errors } = await openPage(browser);
    const tool = '#tool-fit_random_effects';
    await page.click(`${tool} details.tool-details > summary`);
    await page.click(`${tool} button[type="submit"]`);
    const whole = JSON.parse(await resultOf(page, 'fit_random_effects'));
    await page.waitForSelector(`${tool} .result-view table`);
    assert.equal(await viewValue(page, 'fit_random_effects', 'estimate'), whole.estimate.toFixed(4));
    assert.equal(await viewValue(page, 'fit_random_effects', 'k'), '19');
    // Labels as metafor prints them: the estimator, tau^2, the Q test with its df and p.
    assert.equal(await viewValue(page, 'fit_random_effects', 'τ² estimator'), 'REML');
    assert.equal(await viewValue(page, 'fit_random_effects', 'τ²'), whole.tau2.toFixed(4));
    assert.equal(await viewValue(page, 'fit_random_effects', 'Q(df = 18)'), `${whole.q.toFixed(4)}, p = ${whole.q_p.toFixed(4)}`);
    assert.equal(await viewValue(page, 'fit_random_effects', 'q_p'), undefined);
    const p = await viewValue(page, 'fit_random_effects', 'pval');
    assert.equal(p, whole.p < 1e-4 ? '<.0001' : whole.p.toFixed(4));
    // The JSON is folded, not gone; the download is the whole result.
    assert.equal(await page.isVisible(`${tool} pre.result`), false);
    assert.equal(await page.$eval(`${tool} details.result-json`, (d) => d.open), false);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`${tool} .result-whole button:has-text("Download JSON")`)]);
    const chunks = [];
    for await (const chunk of await download.createReadStream()) chunks.push(chunk);
    assert.deepEqual(JSON.parse(Buffer.concat(chunks).toString('utf8')), whole);
    // An error reads as its message, unfolded.
    await page.fill(`${tool} input[name="level"]`, '1.5');
    await page.click(`${tool} button[type="submit"]`);
    await page.waitForFunction((sel) => /invalid_arguments/.test(document.querySelector(sel).textContent), `${tool} pre.result`);
    assert.equal(await page.isVisible(`${tool} pre.result`), true);
    assert.equal(await page.$$eval(`${tool} .result-view table`, (t) => t.length), 0);
    await page.screenshot({ path: join(ARTIFACTS, 'result-table.png'), fullPage: false });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('a bubble plot run from its form draws the picture, not its SVG source', async () => {
  const browser = await launch({ webmcp: false });
  try {
    const { page, errors } = await openPage(browser);
    const tool = '#tool-bubble_plot';
    await page.click(`${tool} details.tool-details > summary`);
    await page.fill(`${tool} input[name="mod"]`, 'weeks');
    await page.click(`${tool} button[type="submit"]`);
    const svg = await page.waitForSelector(`${tool} figure.plot svg`, { timeout: 15000 });
    assert.ok((await svg.evaluate((node) => node.querySelectorAll('circle').length)) >= 19);
    assert.equal(await svg.evaluate((node) => node.namespaceURI), 'http://www.w3.org/2000/svg');
    // The readable part is the model's numbers; the SVG source is only in the folded JSON.
    await page.waitForSelector(`${tool} .result-view table`);
    const shown = await page.$eval(`${tool} .result-view`, (n) => n.textContent);
    assert.doesNotMatch(shown, /<svg/);
    assert.match(shown, /fit\.coefficients|fit\.k/);
    assert.equal(await page.isVisible(`${tool} pre.result`), false);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('a form shows its one-line summary; the full description and schema are folded', async () => {
  const browser = await launch({ webmcp: false });
  try {
    const { page, errors } = await openPage(browser);
    const tool = '#tool-meta_regression';
    assert.equal(await page.isVisible(`${tool} p.summary`), true);
    await page.click(`${tool} details.tool-details > summary`);
    assert.equal(await page.isVisible(`${tool} form`), true);
    assert.equal(await page.isVisible(`${tool} p.description`), false);
    assert.equal(await page.isVisible(`${tool} pre.schema`), false);
    await page.click(`${tool} details.tool-description > summary`);
    assert.equal(await page.isVisible(`${tool} p.description`), true);
    assert.ok((await page.textContent(`${tool} p.description`)).length > (await page.textContent(`${tool} p.summary`)).length);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('WebMCP: records loaded once are named by their handle; an unknown handle is named in the error', async () => {
  const browser = await launch({ webmcp: true });
  try {
    const { page, errors } = await openPage(browser);
    const records = Array.from({ length: 60 }, (_, i) => ({ id: `r${i}`, yi: Math.cos(i) / 3, vi: 0.02 + (i % 7) / 50, dose: i % 4 }));
    const loaded = await agentCall(page, 'load_data', { records });
    assert.ok(!loaded.isError, JSON.stringify(loaded));
    assert.equal(loaded.structuredContent.data_id, 'd1');
    assert.equal(loaded.structuredContent.k, 60);
    for (const [name, extra] of [
      ['fit_random_effects', { method: 'PM', test: 'knha' }],
      ['meta_regression', { mods: ['dose'] }],
    ]) {
      const byHandle = await agentCall(page, name, { ...extra, data_id: 'd1' });
      const inline = await agentCall(page, name, { ...extra, records });
      assert.ok(!byHandle.isError, JSON.stringify(byHandle));
      // The result names the handle it read; the rest is the inline call's.
      assert.equal(byHandle.structuredContent.dataset.data_id, 'd1', name);
      delete byHandle.structuredContent.dataset.data_id;
      assert.deepEqual(byHandle.structuredContent, inline.structuredContent, name);
    }
    // The handle's run draws its companion plot from the handle's records.
    await page.waitForSelector('#tool-meta_regression figure.plot svg', { timeout: 15000 });
    const unknown = await agentCall(page, 'fit_random_effects', { data_id: 'd7' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.content[0].text, /^unknown_data: there is no data handle "d7".*this session holds d1/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
