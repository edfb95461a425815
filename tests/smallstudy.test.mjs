// Small-study effects and sensitivity: an agent runs trim-and-fill and the
// cumulative meta-analysis through WebMCP and sees their companion plots.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ARTIFACTS, ORIGIN, agentCall, launch, openPage, plotOf } from './helpers.mjs';

test('native WebMCP: trim-and-fill and the cumulative meta-analysis run and draw their plots', async () => {
  const browser = await launch({ webmcp: true });
  try {
    const { page, requests, errors } = await openPage(browser);
    assert.equal(await page.getAttribute('#webmcp-status', 'data-mode'), 'native');

    // Trim-and-fill on the frozen dataset fills three records on the left (L0).
    const tf = await agentCall(page, 'trim_and_fill', {});
    assert.ok(!tf.isError, JSON.stringify(tf));
    assert.equal(tf.structuredContent.estimator, 'L0');
    assert.equal(tf.structuredContent.side, 'left');
    assert.equal(tf.structuredContent.k0, 3);
    assert.equal(tf.structuredContent.k, 22);
    assert.equal(tf.structuredContent.filled.length, 3);
    // Its funnel plot: the 19 records, the 3 filled ones drawn open, the
    // funnel around the adjusted estimate.
    const funnel = await plotOf(page, 'trim_and_fill');
    assert.equal(await funnel.evaluate((svg) => svg.querySelectorAll('circle.point[data-id]').length), 19);
    assert.equal(await funnel.evaluate((svg) => svg.querySelectorAll('circle.filled').length), 3);
    assert.equal(await funnel.evaluate((svg) => svg.querySelectorAll('g.funnel').length), 1);
    assert.match(await funnel.evaluate((svg) => svg.textContent), /Adjusted estimate/);
    assert.equal(
      JSON.parse(await page.textContent('#tool-trim_and_fill pre.result')).estimate,
      tf.structuredContent.estimate,
    );

    // The cumulative meta-analysis by year: one step per record, ties in
    // record order; its cumulative forest plot has one row per step.
    const cm = await agentCall(page, 'cumulative_meta_analysis', { order_by: 'year' });
    assert.ok(!cm.isError, JSON.stringify(cm));
    const steps = cm.structuredContent.results;
    assert.equal(cm.structuredContent.order_by, 'year');
    assert.equal(steps.length, 19);
    assert.deepEqual(steps.map((s) => s.k), Array.from({ length: 19 }, (_, i) => i + 1));
    assert.equal(steps[0].tau2, 0);
    const forest = await plotOf(page, 'cumulative_meta_analysis');
    const rows = await forest.evaluate((svg) => [...svg.querySelectorAll('g.row[data-k]')].map((g) => g.dataset.id));
    assert.deepEqual(rows, steps.map((s) => s.added));

    await (await page.$('#tool-trim_and_fill figure.plot')).screenshot({ path: join(ARTIFACTS, 'plot-trim-and-fill.png') });
    await (await page.$('#tool-cumulative_meta_analysis figure.plot')).screenshot({ path: join(ARTIFACTS, 'plot-cumulative.png') });
    assert.deepEqual(requests.filter((u) => !u.startsWith(`${ORIGIN}/`) && !u.startsWith('blob:')), []);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
