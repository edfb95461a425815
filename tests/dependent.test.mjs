// Dependent effect sizes from Your data (issue 22), the 2x2-table tools on
// Your data's rows, and the rules every tool follows shown from the engine
// (issue 21): a person loads a CSV with several effect sizes per study, picks
// the study column among Your data's columns, and runs the three-level model
// and the cluster-robust tests from their forms; without a study column the
// form says what to do.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACTS, exemplar, launch, openPage, reference, runForm } from './helpers.mjs';

// Three schools (the study column is "school", so it is not matched by name),
// two or three effect sizes each, as two groups' means and SDs.
const NESTED = [
  'es,school,m1i,sd1i,n1i,m2i,sd2i,n2i',
  'a1,A,10.2,2.1,20,9.1,2.4,22',
  'a2,A,10.8,2.0,18,9.4,2.2,20',
  'b1,B,3.1,1.1,12,3.9,1.5,12',
  'b2,B,3.6,1.3,14,3.2,1.4,15',
  'b3,B,3.3,1.2,16,3.0,1.1,16',
  'c1,C,12,4,12,14.5,3.5,15',
  'c2,C,13,3.8,14,13.1,3.6,13',
].join('\n');

// One 2x2 table per trial; the treated arm's events are in "events_t", so ai is mapped by hand.
const TABLES = ['trial,events_t,n1i,ci,n2i,year', 't1,12,100,20,100,2001', 't2,4,50,9,50,2003', 't3,0,20,3,20,2009', 't4,7,60,11,58,2012'].join('\n');

let browser;
let dir;
before(async () => {
  browser = await launch({ webmcp: false });
  dir = mkdtempSync(join(tmpdir(), 'dependent-'));
});
after(async () => {
  await browser?.close();
});

/** The rows of the Result table of a tool's result view, as {name: value}. */
function resultValues(page, tool) {
  return page.$$eval(`#tool-${tool} .result-view table`, (tables) => {
    const values = {};
    for (const t of tables) {
      if (t.caption?.textContent !== 'Result') continue;
      for (const tr of t.tBodies[0].rows) values[tr.cells[0].textContent] = tr.cells[1].textContent;
    }
    return values;
  });
}

test('a person picks the study column of a CSV with several effect sizes per study and runs the three-level model and the robust tests', async () => {
  const { page, context, errors } = await openPage(browser);
  writeFileSync(join(dir, 'nested.csv'), NESTED);
  await page.setInputFiles('#your-data-file', join(dir, 'nested.csv'));
  await page.selectOption('#your-data-measure', 'MD');
  await page.waitForSelector('#your-data-map-study');
  await page.selectOption('#your-data-map-id', 'es');
  await page.waitForFunction(() => /^7 records \(MD\) from 7 rows\./.test(document.getElementById('your-data-status').textContent));
  // The study column is mapped like the others: a select of the CSV's columns, none chosen
  // (no column is called "study").
  const options = await page.$$eval('#your-data-map-study option', (o) => o.map((x) => x.value));
  assert.deepEqual(options, ['', 'es', 'school', 'm1i', 'sd1i', 'n1i', 'm2i', 'sd2i', 'n2i']);
  assert.equal(await page.inputValue('#your-data-map-study'), '');
  assert.match(await page.textContent('label[for="your-data-map-study"]'), /^study the study each record belongs to/);

  // Without a study column, the tools that need one say so and are not run (nor ledgered).
  assert.equal(
    await runForm(page, 'fit_multilevel'),
    "Not run: fit_multilevel needs the column naming each record's study: choose it as \"study\" among Your data's columns, or type study in the form.",
  );
  assert.match(await runForm(page, 'robust_test'), /^Not run: robust_test needs the column naming each record's study: .*or type cluster in the form\.$/);
  assert.match(await page.textContent('#ledger-status'), /^No tool runs yet/);

  // The study column chosen: the three-level model on it.
  await page.selectOption('#your-data-map-study', 'school');
  await page.waitForFunction(() => document.getElementById('your-data-map-study')?.value === 'school');
  const fit = JSON.parse(await runForm(page, 'fit_multilevel'));
  assert.equal(fit.study, 'school');
  assert.equal(fit.k, 7);
  assert.equal(fit.n_studies, 3);
  assert.equal(fit.dataset.name, 'custom records');
  assert.equal(fit.sigma2.length, 2);
  // The results table shows the two variance components.
  const shown = await resultValues(page, 'fit_multilevel');
  const sigma2 = shown['σ²'].split(', ').map(Number);
  assert.equal(sigma2.length, 2);
  sigma2.forEach((s, i) => assert.ok(Math.abs(s - fit.sigma2[i]) <= 5e-5, `${shown['σ²']} vs ${fit.sigma2}`));
  assert.equal(shown.n_studies, '3');
  await (await page.$('#tool-fit_multilevel')).screenshot({ path: join(ARTIFACTS, 'your-data-multilevel.png') });
  // The same numbers as the command line computes from the same CSV (its es column as id).
  writeFileSync(join(dir, 'nested-id.csv'), NESTED.replace(/^es,/, 'id,'));
  const cli = (tool, args) => JSON.parse(exemplar('call', tool, JSON.stringify(args), '--records', join(dir, 'nested-id.csv'), '--measure', 'MD'));
  const cliFit = cli('fit_multilevel', { study: 'school' });
  assert.deepEqual(fit, cliFit);

  // The cluster-robust tests: the random-effects fit clustered by school, then the
  // three-level model on school (which takes the study column as its study too), CR1.
  const robust = JSON.parse(await runForm(page, 'robust_test'));
  assert.equal(robust.cluster, 'school');
  assert.equal(robust.model, 'random_effects');
  assert.equal(robust.n_clusters, 3);
  assert.deepEqual(robust, cli('robust_test', { cluster: 'school' }));
  const multilevel = JSON.parse(await runForm(page, 'robust_test', { fields: { model: '"multilevel"', vcov: '"CR1"' } }));
  assert.equal(multilevel.model, 'multilevel');
  assert.equal(multilevel.vcov, 'CR1');
  assert.deepEqual(multilevel, cli('robust_test', { cluster: 'school', study: 'school', model: 'multilevel', vcov: 'CR1' }));
  assert.deepEqual(
    (await page.$$eval('#tool-robust_test .result-view table', (t) => t.map((x) => x.caption?.textContent))).length > 0,
    true,
  );
  // A column typed in the form is used as typed.
  const typed = await runForm(page, 'robust_test', { fields: { model: '"random_effects"', vcov: '"CR2"', cluster: 'nope' } });
  assert.match(typed, /nope/);

  // The frozen dataset is still the default elsewhere: its forms run as before.
  await page.check('#tool-fit_multilevel input[type="radio"][value="frozen"]');
  assert.match(await runForm(page, 'fit_multilevel', { yours: false }), /study/);
  await context.close();
  assert.deepEqual(errors, []);
});

test('the 2x2-table tools run on the rows of Your data, their columns as mapped there', async () => {
  const { page, context, errors } = await openPage(browser);
  // Nothing in Your data yet: the form says so.
  assert.equal(await runForm(page, 'mantel_haenszel'), 'Not run: Your data has no rows yet: paste a CSV there.');
  await page.fill('#your-data-csv', TABLES);
  await page.selectOption('#your-data-measure', 'OR');
  await page.waitForSelector('#your-data-map-ai');
  await page.selectOption('#your-data-map-ai', 'events_t');
  await page.selectOption('#your-data-map-id', 'trial');
  await page.waitForFunction(() => /^4 records \(OR\) from 4 rows\./.test(document.getElementById('your-data-status').textContent));

  const byHand = TABLES.split('\n')
    .slice(1)
    .map((line) => {
      const [, ai, n1i, ci, n2i] = line.split(',').map(Number);
      return { ai, n1i, ci, n2i };
    });
  const withoutDataset = ({ dataset, ...rest }) => rest;
  const mh = JSON.parse(await runForm(page, 'mantel_haenszel', { fields: { measure: '"RR"' } }));
  assert.equal(mh.measure, 'RR');
  assert.equal(mh.k, 4);
  assert.deepEqual(withoutDataset(mh), withoutDataset(JSON.parse(exemplar('call', 'mantel_haenszel', JSON.stringify({ data: byHand, measure: 'RR' })))));
  const peto = JSON.parse(await runForm(page, 'peto_odds_ratio'));
  assert.equal(peto.k, 4);
  assert.deepEqual(withoutDataset(peto), withoutDataset(JSON.parse(exemplar('call', 'peto_odds_ratio', JSON.stringify({ data: byHand })))));
  // The rows as Your data holds them, ids and other columns with them: the same data as the
  // command line's, so the same hash.
  const rows = TABLES.split('\n')
    .slice(1)
    .map((line) => {
      const [trial, ai, n1i, ci, n2i, year] = line.split(',');
      return { id: trial, ai: Number(ai), n1i: Number(n1i), ci: Number(ci), n2i: Number(n2i), year: Number(year) };
    });
  assert.deepEqual(peto, JSON.parse(exemplar('call', 'peto_odds_ratio', JSON.stringify({ data: rows }))));
  // The rows typed in the form are still the default.
  await page.check('#tool-peto_odds_ratio input[type="radio"][value="typed"]');
  // Nothing typed: data or a load_data handle (data_id) is needed, and the engine says so.
  assert.match(await runForm(page, 'peto_odds_ratio', { yours: false }), /give data \(one 2x2 table per study.* or data_id/);
  await context.close();
  assert.deepEqual(errors, []);
});

test('the rules every tool follows are shown, folded, as the engine says them, with no benchmark result', async () => {
  const { page, context, errors } = await openPage(browser);
  assert.equal(await page.$eval('#tool-rules', (d) => d.open), false);
  assert.equal(await page.textContent('#tool-rules > summary'), 'Rules every tool follows');
  await page.click('#tool-rules > summary');
  const shown = await page.$$eval('#tool-rules-body p', (ps) => ps.map((p) => p.textContent).join('\n\n'));
  // What the engine returns: the whole module's export, instantiated here on its own.
  const engine = await page.evaluate(async () => {
    const wasm = await import('/www/pkg/full/exemplar_wasm.js');
    await wasm.default();
    return wasm.instructions();
  });
  assert.equal(shown, engine);
  assert.match(shown, /^Exact meta-analysis tools/);
  assert.ok(shown.includes('SHARED ARGUMENTS'));
  assert.ok(await page.isVisible('#tool-rules-body p'));
  // No result of the benchmark's tasks, at any precision a person would read.
  const ref = reference();
  const numbers = [...['estimate', 'ci_lower', 'ci_upper', 'p'].flatMap((f) => [ref.overall[f], ref.exclude_s04[f]]), ref.bias.egger_p];
  const csv = readFileSync(join(process.cwd(), 'crates/exemplar/data/dat.raudenbush1985.csv'), 'utf8');
  for (const n of numbers) {
    for (const digits of [3, 4, 5]) {
      const s = n.toFixed(digits);
      if (digits < 5 && csv.includes(s)) continue;
      assert.ok(!shown.includes(s), `the rules contain ${s} (reference ${n})`);
    }
  }
  await context.close();
  assert.deepEqual(errors, []);
});
