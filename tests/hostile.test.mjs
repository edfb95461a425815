// The page under hostile input (issue 16): record ids holding markup,
// script, quotes, direction and control characters and very long strings,
// through every tool (and so every plot), the ledger and the scoring fields.
// Nothing runs, no markup is interpreted, no CSP violation fires, nothing is
// stored, nothing leaves the origin.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ORIGIN, cliToolNames, ledgerVerified, launch, openPage, storageIsEmpty } from './helpers.mjs';

const HOSTILE_IDS = [
  '<img src=x onerror="window.__pwned=1">',
  '<script>window.__pwned=2</script>',
  '"><svg onload="window.__pwned=3">',
  "'; window.__pwned=4; '",
  '\u202Egnp.exe\u2066x\u2069',
  'tab\there\u0000nul\u0007bell',
  '</text><script>window.__pwned=5</script><text>',
  'x'.repeat(5000),
];

function hostileRecords() {
  // `study` (hostile text too) groups the records in threes for the multilevel and
  // cluster-robust tools.
  return HOSTILE_IDS.map((id, i) => ({
    id,
    // Not exactly linear in vi (PEESE would fit it without residual and refuse).
    yi: 0.1 * (i - 3) + (i % 3 === 0 ? 0.05 : 0),
    vi: 0.01 + 0.005 * i,
    dose: i,
    arm: HOSTILE_IDS[i % 3],
    study: HOSTILE_IDS[Math.floor(i / 3)],
  }));
}

test('hostile ids through every tool, plot, the ledger and the scorer: nothing runs or is interpreted', async () => {
  const browser = await launch({ webmcp: false });
  try {
    const { context, page, requests, errors } = await openPage(browser);
    await page.evaluate(() => {
      window.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective));
    });
    const scriptsBefore = await page.$$eval('script', (s) => s.length);
    const records = hostileRecords();
    const names = cliToolNames();
    const outcomes = [];
    const takesRecords = await page.evaluate(async () =>
      Object.fromEntries((await document.modelContext.getTools()).map((t) => [t.name, 'records' in (t.inputSchema.properties ?? {})])),
    );
    for (const name of names) {
      const args = takesRecords[name] ? { records } : {};
      if (name === 'refit_excluding') args.exclude = [HOSTILE_IDS[0]];
      // Moderators and groups as text columns holding the hostile strings too.
      if (name === 'meta_regression') args.mods = ['arm'];
      if (name === 'subgroup_analysis') args.by = 'arm';
      if (name === 'bubble_plot') args.mod = 'dose';
      if (name === 'robust_test') args.cluster = 'study';
      if (name === 'compare_models') {
        args.models = [
          { tool: 'fit_random_effects', arguments: { method: 'ML' } },
          { tool: 'meta_regression', arguments: { mods: ['arm'], method: 'ML' } },
        ];
      }
      // One step at 0.5: the hostile records' p values fall on both sides of it (none is
      // below the default first step, 0.025).
      if (name === 'selection_model') args.steps = [0.5];
      if (name === 'mantel_haenszel' || name === 'peto_odds_ratio') {
        args.data = HOSTILE_IDS.map((id, i) => ({ id, ai: 2 + i, n1i: 40, ci: 1 + (i % 4), n2i: 42 }));
      }
      if (name === 'convert_summaries') {
        args.kind = 'fivenum';
        args.rows = HOSTILE_IDS.map((id, i) => ({ id, min: i, q1: i + 2, median: i + 3, q3: i + 5, max: i + 8, n: 30 }));
      }
      if (name === 'compute_effect_sizes') {
        args.measure = 'MD';
        args.data = HOSTILE_IDS.map((id, i) => ({ id, m1i: i, sd1i: 1, n1i: 10, m2i: 0, sd2i: 1, n2i: 10 }));
      }
      const out = JSON.parse(await page.evaluate(([n, a]) => document.modelContext.executeTool(n, a), [name, args]));
      outcomes.push([name, out.isError ? out.content[0].text.slice(0, 80) : 'ok']);
      // Ids come back to the agent as data, exactly as given.
      if (!out.isError && name === 'refit_excluding') assert.deepEqual(out.structuredContent.excluded, [HOSTILE_IDS[0]]);
    }
    // Every analysis ran on the hostile records (get_dataset takes none).
    for (const [name, outcome] of outcomes) assert.equal(outcome, 'ok', `${name}: ${outcome}`);
    // Issue 41 item 4: the printed summaries and result tables the page shows hold no control
    // or direction character from the ids (a U+202E made "0.1318" read "8131.0"); the engine
    // wrote them as visible escapes (printable.rs), and the long id is cut in the summaries.
    const shown = await page.$$eval('.result-view pre.summary, .result-view table', (nodes) =>
      nodes.map((n) => [n.tagName, n.textContent]),
    );
    const summaries = shown.filter(([tag]) => tag === 'PRE');
    assert.ok(summaries.length >= 15, `${summaries.length} summaries shown`);
    const controls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
    for (const [tag, text] of shown) {
      assert.doesNotMatch(tag === 'PRE' ? text : text.replaceAll('\n', ''), controls, text.slice(0, 300));
    }
    assert.ok(summaries.some(([, text]) => text.includes('\\u202egnp.exe')), 'the escape is shown');
    assert.ok(summaries.every(([, text]) => !text.includes('x'.repeat(100))), 'the long id is cut');
    // The plots beside the fit, refit and Egger results are drawn, as SVG, with the ids as text.
    await page.waitForSelector('#tool-egger_test figure.plot svg', { timeout: 5000 });
    await page.waitForSelector('#tool-fit_random_effects figure.plot svg', { timeout: 5000 });
    // A person pastes markup into a scoring field.
    await page.fill('#answer-pdf', '<img src=x onerror="window.__pwned=6"><script>window.__pwned=7</script>');
    await page.click('#score-pdf');
    await ledgerVerified(page, names.length);
    await page.waitForTimeout(200);

    const state = await page.evaluate(() => ({
      pwned: window.__pwned ?? null,
      violations: window.__violations,
      imgs: [...document.querySelectorAll('img')].length,
      handlers: [...document.querySelectorAll('*')].filter((n) => [...n.attributes].some((a) => a.name.startsWith('on'))).length,
      foreignSvg: [...document.querySelectorAll('svg script, svg foreignObject')].length,
    }));
    assert.deepEqual(state, { pwned: null, violations: [], imgs: 0, handlers: 0, foreignSvg: 0 });
    assert.equal(await page.$$eval('script', (s) => s.length), scriptsBefore, 'no script element was added');
    // The ids are shown as text: the ledger shows the markup literally.
    assert.match(await page.textContent('#ledger-table'), /<img src=x onerror=/);
    const storage = await storageIsEmpty(page, context);
    assert.deepEqual(storage, { localStorage: 0, sessionStorage: 0, indexedDB: 0, cacheStorage: 0, cookie: '', cookies: 0 });
    assert.deepEqual(requests.filter((u) => !u.startsWith(`${ORIGIN}/`) && !u.startsWith('blob:')), []);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
