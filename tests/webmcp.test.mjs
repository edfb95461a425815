// Agents: the tools as an agent discovers and calls them, natively and
// through the page's fallback.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  ARTIFACTS,
  ORIGIN,
  agentCall,
  answerFrom,
  cliToolNames,
  exportedLedger,
  failingFields,
  launch,
  ledgerVerified,
  openPage,
  plotOf,
  resultOf,
  scoreAnswer,
} from './helpers.mjs';

test('native WebMCP: an agent discovers the tools, calls fit, refit and Egger, and scores 13/13', async () => {
  const browser = await launch({ webmcp: true });
  try {
    const { page, requests, errors } = await openPage(browser);
    assert.equal(await page.getAttribute('#webmcp-status', 'data-mode'), 'native');

    const expected = cliToolNames();
    const discovered = await page.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name));
    assert.deepEqual([...discovered].sort(), [...expected].sort(), 'document.modelContext.getTools() lists the Rust tools');
    const viaPlaywright = (await page.webmcp.tools()).map((t) => t.name);
    assert.deepEqual([...viaPlaywright].sort(), [...expected].sort(), 'page.webmcp.tools() lists the Rust tools');

    const tools = await page.evaluate(async () => document.modelContext.getTools());
    for (const t of tools) {
      assert.ok(t.description && t.description.length > 40, `${t.name} has a description for agents`);
      assert.equal(t.inputSchema.type, 'object', `${t.name} has an object input schema`);
      // load_data keeps records in the page's memory for later calls: the one tool that
      // is not read-only.
      assert.equal(t.annotations.readOnlyHint, t.name !== 'load_data', `${t.name}'s readOnlyHint`);
    }

    const fit = await page.webmcp.callTool('fit_random_effects', {});
    assert.ok(!fit.isError, JSON.stringify(fit));
    const refit = await agentCall(page, 'refit_excluding', { exclude: ['s04'] });
    assert.ok(!refit.isError, JSON.stringify(refit));
    const egger = await agentCall(page, 'egger_test', {});
    assert.ok(!egger.isError, JSON.stringify(egger));
    // The text content carries the same result as the structured content.
    assert.deepEqual(JSON.parse(refit.content[0].text), refit.structuredContent);

    // Each fit, refit and Egger run gets its plot beside its result: a forest
    // plot with one row per record, a funnel plot with Egger's line.
    const forest = await plotOf(page, 'fit_random_effects');
    assert.equal(await forest.evaluate((svg) => svg.querySelectorAll('g.row[data-id]').length), 19);
    assert.equal(await forest.evaluate((svg) => svg.querySelectorAll('.diamond').length), 1);
    const refitForest = await plotOf(page, 'refit_excluding');
    assert.match(await refitForest.evaluate((svg) => svg.textContent), /excluded/);
    const funnel = await plotOf(page, 'egger_test');
    assert.equal(await funnel.evaluate((svg) => svg.querySelectorAll('g.egger-line').length), 1);
    assert.equal(await funnel.evaluate((svg) => svg.querySelectorAll('[data-id]').length), 19);
    // The agent's result is shown beside it, as a person's would be.
    assert.equal(JSON.parse(await page.textContent('#tool-egger_test pre.result')).egger_p, egger.structuredContent.egger_p);
    await (await page.$('#tool-fit_random_effects figure.plot')).screenshot({ path: join(ARTIFACTS, 'plot-forest.png') });
    await (await page.$('#tool-egger_test figure.plot')).screenshot({ path: join(ARTIFACTS, 'plot-funnel.png') });

    const answer = answerFrom(fit.structuredContent, refit.structuredContent, egger.structuredContent);
    assert.equal(answer.overall.k, 19);
    assert.equal(answer.exclude_s04.k, 18);
    assert.equal(await scoreAnswer(page, 'webmcp', JSON.stringify(answer, null, 2)), '13/13');
    assert.deepEqual(await failingFields(page, 'webmcp'), []);

    // A bad argument is a structured tool error, not a thrown UnknownError.
    const bad = await agentCall(page, 'refit_excluding', { exclude: ['s99'] });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /s99/);
    // A failed run leaves no plot from an earlier run beside its error.
    await page.waitForFunction(() => !document.querySelector('#tool-refit_excluding figure.plot'), null, { timeout: 5000 });

    // The ledger holds the four tool runs (a plot drawn for a result is not
    // a run of its own), verified, and no score.
    assert.match(await ledgerVerified(page, 4), /Chain verified in this browser: 4 entries/);
    const ledger = JSON.parse(await exportedLedger(page));
    assert.deepEqual(
      ledger.map((e) => e.tool),
      ['fit_random_effects', 'refit_excluding', 'egger_test', 'refit_excluding'],
    );
    assert.ok(ledger.every((e) => expected.includes(e.tool)), 'only tool runs enter the ledger');
    const rechecked = await page.evaluate(async (json) => {
      const wasm = await import('/www/pkg/core/exemplar_wasm.js');
      return JSON.parse(wasm.Session.verifyJson(json));
    }, JSON.stringify(ledger));
    assert.equal(rechecked.ok, true, JSON.stringify(rechecked));
    assert.equal(rechecked.length, 4);

    await page.screenshot({ path: join(ARTIFACTS, 'page-native-webmcp.png'), fullPage: true });
    assert.deepEqual(requests.filter((u) => !u.startsWith(`${ORIGIN}/`) && !u.startsWith('blob:')), []);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

test('without WebMCP: the fallback registers the same tools, and they run', async () => {
  const browser = await launch({ webmcp: false });
  try {
    const { page, errors } = await openPage(browser);
    assert.equal(await page.getAttribute('#webmcp-status', 'data-mode'), 'fallback');
    assert.match(await page.textContent('#webmcp-status'), /fallback/i);

    const expected = cliToolNames();
    const discovered = await page.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name));
    assert.deepEqual(discovered, expected);

    // executeTool takes an input object or a JSON string, and a tool name or object.
    const fit = await agentCall(page, 'fit_random_effects', '{}');
    assert.equal(fit.structuredContent.k, 19);
    const refit = await agentCall(page, 'refit_excluding', { exclude: ['s04'] });
    assert.equal(refit.structuredContent.k, 18);
    const byName = JSON.parse(await page.evaluate(() => document.modelContext.executeTool('egger_test', {})));
    assert.ok(['passed', 'failed', 'inconclusive'].includes(byName.structuredContent.rule_outcome));
    // Tools whose arguments are required get the least they need.
    const nested = ['a', 'a', 'b', 'b', 'c', 'c', 'd'].map((study, i) => ({
      id: `e${i}`,
      yi: 0.1 * i - 0.2,
      vi: 0.02 + 0.01 * (i % 3),
      study,
    }));
    const tables = [
      { ai: 4, n1i: 123, ci: 11, n2i: 139 },
      { ai: 6, n1i: 306, ci: 29, n2i: 303 },
      { ai: 3, n1i: 231, ci: 11, n2i: 220 },
    ];
    const required = {
      refit_excluding: { exclude: ['s01'] },
      fit_multilevel: { records: nested },
      robust_test: { records: nested, cluster: 'study' },
      mantel_haenszel: { data: tables },
      peto_odds_ratio: { data: tables },
      load_data: { records: nested },
      compute_effect_sizes: { measure: 'PR', data: [{ xi: 1, ni: 10 }] },
      meta_regression: { mods: ['weeks'] },
      subgroup_analysis: { by: 'tester' },
      bubble_plot: { mod: 'weeks' },
      compare_models: {
        models: [
          { tool: 'fit_random_effects', arguments: { method: 'ML' } },
          { tool: 'meta_regression', arguments: { mods: ['weeks'], method: 'ML' } },
        ],
      },
      convert_summaries: { kind: 'wald', transf: 'log', rows: [{ out: 1.5, 'ci.lb': 1.1, 'ci.ub': 2.0 }] },
    };
    for (const name of expected) {
      const out = await agentCall(page, name, required[name] ?? {});
      assert.ok(!out.isError, `${name}: ${JSON.stringify(out)}`);
    }
    // Duplicate registration rejects, as natively.
    const duplicate = await page.evaluate(async () => {
      try {
        await document.modelContext.registerTool({ name: 'get_dataset', description: 'x', execute: () => ({}) });
        return 'registered';
      } catch (err) {
        return err.name;
      }
    });
    assert.equal(duplicate, 'InvalidStateError');

    // A person runs the same tool through its form, folded away until opened.
    assert.equal(await page.isVisible('#tool-refit_excluding input[name="exclude"]'), false);
    await page.click('#tool-refit_excluding details.tool-details > summary');
    await page.fill('#tool-refit_excluding input[name="exclude"]', 's04');
    // This visit has loaded data (load_data above), so a run that names no data is refused
    // rather than analysing the frozen dataset unasked; the person names it.
    await page.click('#tool-refit_excluding button[type="submit"]');
    assert.match(await resultOf(page, 'refit_excluding'), /data_not_named/);
    await page.selectOption('#tool-refit_excluding select[name="dataset"]', JSON.stringify('dat.raudenbush1985'));
    await page.click('#tool-refit_excluding button[type="submit"]');
    await page.waitForFunction(() => {
      const text = document.querySelector('#tool-refit_excluding pre.result')?.textContent ?? '';
      return text.startsWith('{') && !text.includes('data_not_named');
    });
    const shown = JSON.parse(await resultOf(page, 'refit_excluding'));
    assert.equal(shown.k, 18);
    assert.deepEqual(shown.excluded, ['s04']);
    // A person's run gets its plot too.
    const forest = await plotOf(page, 'refit_excluding');
    assert.equal(await forest.evaluate((svg) => svg.querySelectorAll('g.row[data-id]').length), 19);
    const ledgerText = await page.textContent('#ledger-table');
    assert.match(ledgerText, /person \(form\)/);
    assert.match(ledgerText, /agent \(WebMCP\)/);
    const runs = await page.$$eval('#ledger-table tbody tr', (rows) => rows.length);
    assert.match(await ledgerVerified(page, runs), /Chain verified/);

    // A burst of calls: one row each, and the chain verifies once it settles.
    await page.evaluate(async () => {
      for (let i = 0; i < 40; i += 1) await document.modelContext.executeTool('get_dataset', {});
    });
    assert.equal(await page.$$eval('#ledger-table tbody tr', (rows) => rows.length), runs + 40);
    assert.match(await ledgerVerified(page, runs + 40), new RegExp(`Chain verified in this browser: ${runs + 40} entries`));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
