// Moderator analyses as an agent runs them through WebMCP: a meta-regression on
// weeks and a subgroup analysis by tester, each with its plot beside its result
// (a bubble plot, a forest plot grouped by tester), the same numbers as the CLI.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ARTIFACTS, agentCall, exemplar, launch, openPage, plotOf } from './helpers.mjs';

const cli = (name, args) => JSON.parse(exemplar('call', name, JSON.stringify(args)));

test('an agent runs a meta-regression and a subgroup analysis through WebMCP and sees their plots', async () => {
  const browser = await launch({ webmcp: true });
  try {
    const { page, errors } = await openPage(browser);
    assert.equal(await page.getAttribute('#webmcp-status', 'data-mode'), 'native');

    const metaArgs = { mods: ['weeks'], at: [{ weeks: 0 }, { weeks: 3 }] };
    const reg = await agentCall(page, 'meta_regression', metaArgs);
    assert.ok(!reg.isError, JSON.stringify(reg));
    assert.deepEqual(reg.structuredContent, cli('meta_regression', metaArgs));
    assert.deepEqual(reg.structuredContent.coefficients.map((c) => c.name), ['intercept', 'weeks']);
    assert.equal(reg.structuredContent.predictions.length, 2);

    // The bubble plot: one point per record, the fitted line, the model's numbers beside it.
    const bubble = await plotOf(page, 'meta_regression');
    assert.equal(await bubble.evaluate((svg) => svg.getAttribute('data-plot')), 'bubble');
    assert.equal(await bubble.evaluate((svg) => svg.querySelectorAll('g.point[data-id]').length), 19);
    assert.equal(await bubble.evaluate((svg) => svg.querySelectorAll('g.fitted-line line').length), 1);
    const slope = reg.structuredContent.coefficients[1].estimate;
    assert.match(await bubble.evaluate((svg) => svg.querySelector('g.notes').textContent), new RegExp(`Slope ${slope.toFixed(4)}`));
    assert.equal(await page.getAttribute('#tool-meta_regression figure.plot', 'data-plot-tool'), 'bubble_plot');
    await (await page.$('#tool-meta_regression figure.plot')).screenshot({ path: join(ARTIFACTS, 'plot-bubble.png') });

    const subArgs = { by: 'tester' };
    const sub = await agentCall(page, 'subgroup_analysis', subArgs);
    assert.ok(!sub.isError, JSON.stringify(sub));
    assert.deepEqual(sub.structuredContent, cli('subgroup_analysis', subArgs));
    assert.deepEqual(sub.structuredContent.groups.map((g) => g.level), ['aware', 'blind']);

    // The forest plot grouped by tester: a diamond per subgroup and the test in the footer.
    const forest = await plotOf(page, 'subgroup_analysis');
    assert.equal(await forest.evaluate((svg) => svg.querySelectorAll('g.subgroup .diamond').length), 2);
    assert.equal(await forest.evaluate((svg) => svg.querySelectorAll('g.row[data-id]').length), 19);
    assert.match(
      // The notes wrap to the plot's width: one line each, read as one text.
      await forest.evaluate((svg) => [...svg.querySelectorAll('g.notes text')].map((t) => t.textContent).join(' ')),
      new RegExp(`Test for subgroup differences .*Q\\(1\\) = ${sub.structuredContent.q_between.toFixed(2)}`),
    );
    await (await page.$('#tool-subgroup_analysis figure.plot')).screenshot({ path: join(ARTIFACTS, 'plot-forest-by-tester.png') });

    // A meta-regression on a text moderator has no bubble plot, and a bad moderator is a clear error.
    const onTester = await agentCall(page, 'meta_regression', { mods: ['tester'] });
    assert.ok(!onTester.isError);
    await page.waitForFunction(() => !document.querySelector('#tool-meta_regression figure.plot'), null, { timeout: 5000 });
    const bad = await agentCall(page, 'meta_regression', { mods: ['nope'] });
    assert.ok(bad.isError);
    assert.match(bad.content[0].text, /invalid_arguments: there is no column "nope"; the records' columns are year, weeks/);

    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
