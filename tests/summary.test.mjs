// The printed summary on the page (issue 32 item 1): a result shows, above its tables, the
// text metafor's print methods lay out, after a headline; it is the very text the native
// `exemplar call TOOL ARGS --text` prints (one engine function, in wasm and natively), and at
// phone width it scrolls inside itself rather than widening the page.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ARTIFACTS, exemplar, launch, openPage } from './helpers.mjs';

/** Runs `tool`'s form with its defaults and returns the summary shown. */
async function runForm(page, tool) {
  const article = `#tool-${tool}`;
  await page.click(`${article} details.tool-details > summary`);
  await page.click(`${article} button[type="submit"]`);
  const pre = await page.waitForSelector(`${article} .result-view pre.summary`, { timeout: 15000 });
  return pre.evaluate((node) => node.textContent);
}

test('a result shows its printed summary above its tables, as `exemplar call --text` prints it', async () => {
  const browser = await launch({ webmcp: false });
  try {
    const { page, errors } = await openPage(browser);
    for (const tool of ['fit_random_effects', 'egger_test']) {
      const shown = await runForm(page, tool);
      assert.equal(shown, exemplar('call', tool, '{}', '--text'), tool);
      // Above the first table of the view.
      const above = await page.$eval(`#tool-${tool} .result-view`, (view) => {
        const pre = view.querySelector('pre.summary');
        const table = view.querySelector('table');
        return Boolean(pre.compareDocumentPosition(table) & Node.DOCUMENT_POSITION_FOLLOWING);
      });
      assert.ok(above, `${tool}: the summary comes before the tables`);
    }
    const fit = await page.$eval('#tool-fit_random_effects pre.summary', (n) => n.textContent);
    assert.match(fit, /^SMD 0\.08 \[-0\.02, 0\.18\] \(95% CI; random-effects REML, k = 19\)\n/);
    assert.match(fit, /\nRandom-Effects Model \(k = 19; tau\^2 estimator: REML\)\n/);
    assert.match(fit, /\n {2}0\.0837 {2}0\.0516 {2}1\.6208 {2}0\.1051 {2}-0\.0175 {2}0\.1849\n/);
    await page.screenshot({ path: join(ARTIFACTS, 'summary-desktop.png') });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('at phone width the summary keeps its columns and scrolls inside itself', async () => {
  const browser = await launch({ webmcp: false });
  try {
    const { page, errors } = await openPage(browser, { viewport: { width: 390, height: 844 } });
    await runForm(page, 'fit_random_effects');
    const widths = await page.$eval('#tool-fit_random_effects pre.summary', (pre) => ({
      wrap: getComputedStyle(pre).whiteSpace,
      pre: pre.getBoundingClientRect().right,
      page: document.documentElement.scrollWidth,
      view: window.innerWidth,
      font: parseFloat(getComputedStyle(pre).fontSize),
    }));
    assert.equal(widths.wrap, 'pre');
    assert.ok(widths.page <= widths.view, `the page is ${widths.page} px wide in a ${widths.view} px view`);
    assert.ok(widths.pre <= widths.view, 'the summary stays inside the view');
    assert.ok(widths.font >= 11, `summary text is ${widths.font} px`);
    await page.screenshot({ path: join(ARTIFACTS, 'summary-phone.png') });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
