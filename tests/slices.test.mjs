// Large results drawn without holding the page's thread (issue 41 item 13): a result
// table's rows come a slice at a time and end whole; a plot tool's SVG too long to draw by
// itself comes from the worker as a Blob, offered as the very SVG the agent received, and
// drawn on request. How long the page's tasks take is a figure of `cargo xtask bench`
// (`bench longtasks`), not asserted here (issue 41 item 9).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage } from './helpers.mjs';

test('a large result table is drawn a slice at a time, and ends with every row the view holds', async () => {
  const browser = await launch({ webmcp: false });
  try {
    const { page, errors } = await openPage(browser);
    const tool = '#tool-leave_one_out';
    // Every count of rows the big table has had, as it was drawn.
    await page.evaluate((sel) => {
      window.__rowCounts = [];
      const view = document.querySelector(`${sel} .result-view`);
      new MutationObserver(() => {
        const bodies = [...view.querySelectorAll('table tbody')];
        const rows = Math.max(0, ...bodies.map((b) => b.rows.length));
        if (window.__rowCounts.at(-1) !== rows) window.__rowCounts.push(rows);
      }).observe(view, { childList: true, subtree: true });
    }, tool);
    const ids = await page.evaluate(async () => {
      const records = Array.from({ length: 1500 }, (_, i) => ({ id: `r${i}`, yi: Math.cos(i) / 2, vi: 0.02 + (i % 7) / 50 }));
      const result = JSON.parse(await document.modelContext.executeTool('leave_one_out', { records }));
      return result.structuredContent.results.map((r) => r.omitted);
    });
    assert.equal(ids.length, 1500);
    await page.waitForSelector(`${tool} .result-view table`, { state: 'attached', timeout: 15000 });
    await page.waitForFunction((sel) => !document.querySelector(`${sel} .result-view`).hasAttribute('aria-busy'), tool, { timeout: 15000 });
    const shown = await page.$$eval(`${tool} .result-view table`, (tables) =>
      tables.map((t) => ({ rows: t.tBodies[0].rows.length, first: [...t.tBodies[0].rows].map((r) => r.cells[0].textContent) })),
    );
    const big = shown.reduce((a, b) => (b.rows > a.rows ? b : a));
    // The view holds the first 100 rows (result_view::MAX_ROWS), and says so.
    assert.equal(big.rows, 100);
    assert.deepEqual(big.first, ids.slice(0, 100), 'the rows in order, none lost or doubled between slices');
    assert.match(await page.textContent(`${tool} .result-view`), /The first 100 of 1500 rows; the JSON has them all\./);
    const counts = await page.evaluate(() => window.__rowCounts);
    assert.equal(counts.at(-1), 100);
    assert.ok(counts.filter((n) => n > 0 && n < 100).length >= 2, `drawn in slices: the row counts seen were ${counts.join(', ')}`);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('a plot tool\'s SVG too long to draw by itself is offered as the SVG the agent got, and drawn on request', async () => {
  const browser = await launch({ webmcp: false });
  try {
    const { page, errors } = await openPage(browser);
    const tool = '#tool-funnel_plot';
    const k = 10000;
    const svg = await page.evaluate(async (k) => {
      const records = Array.from({ length: k }, (_, i) => ({ id: `r${i}`, yi: Math.sin(i) / 3, vi: 0.01 + (i % 17) / 100 }));
      const result = JSON.parse(await document.modelContext.executeTool('funnel_plot', { records }));
      return result.structuredContent.svg;
    }, k);
    const max = await page.evaluate(async () => (await import('/www/engine.js')).engine.metadata().max_drawn_svg_chars);
    assert.ok(svg.length > max, `the SVG (${svg.length} characters) is longer than the page draws by itself (${max})`);
    const offer = await page.waitForSelector(`${tool} .plot-offer`, { timeout: 15000 });
    assert.equal(await page.$(`${tool} figure.plot`), null, 'not drawn by itself');
    assert.match(await offer.textContent(), new RegExp(`${(svg.length / 1e6).toFixed(1)} million characters of SVG`));
    await page.click(`${tool} details.tool-details > summary`);
    const [download] = await Promise.all([page.waitForEvent('download'), offer.$eval('a[download]', (a) => a.click())]);
    assert.equal(download.suggestedFilename(), 'funnel_plot.svg');
    const chunks = [];
    for await (const chunk of await download.createReadStream()) chunks.push(chunk);
    assert.ok(Buffer.concat(chunks).toString('utf8') === svg, 'the download is the SVG the agent received');
    await offer.$eval('button', (b) => b.click());
    const drawn = await page.waitForSelector(`${tool} figure.plot svg`, { timeout: 15000 });
    assert.equal(await drawn.evaluate((node) => node.querySelectorAll('circle.point[data-id]').length), k);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
