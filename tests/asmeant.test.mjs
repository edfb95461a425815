// Your data analysed as the researcher meant it (issue 31): a person pastes a CSV
// of 2x2 counts (dat.bcg) whose numbers arrive as text, with a blank latitude and
// an author column, runs a formula meta-regression from the form on it, and labels
// the forest plot's rows by author. The numbers are metafor's.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACTS, exemplar, launch, openPage, plotOf, resultOf } from './helpers.mjs';

// dat.bcg (metadat), the first author's surname as `author`; t04's ablat left blank.
const CSV = [
  'id,author,year,ai,bi,ci,di,ablat,alloc',
  't01,Aronson,1948,4,119,11,128,44,random',
  't02,Ferguson,1949,6,300,29,274,55,random',
  't03,Rosenthal,1960,3,228,11,209,42,random',
  't04,Hart,1977,62,13536,248,12619,,random',
  't05,Frimodt-Moller,1973,33,5036,47,5761,13,alternate',
  't06,Stein,1953,180,1361,372,1079,44,alternate',
  't07,Vandiviere,1973,8,2537,10,619,19,random',
  't08,TPT,1980,505,87886,499,87892,13,random',
  't09,Coetzee,1968,29,7470,45,7232,27,random',
  't10,Rosenthal,1961,17,1699,65,1600,42,systematic',
  't11,Comstock,1974,186,50448,141,27197,18,systematic',
  't12,Comstock,1969,5,2493,3,2338,33,systematic',
  't13,Comstock,1976,27,16886,29,17825,33,systematic',
].join('\n');

// metafor 3.8-1: d <- escalc("RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg);
// d$ablat[4] <- NA; coef(rma(yi, vi, mods = ~ ablat + factor(alloc), data = d, control =
// list(threshold = 1e-13, maxiter = 100000, stepadj = 0.5))) (REML to its exact root; na.omit
// leaves k = 12).
const METAFOR = {
  intercept: 0.25603816058323364,
  ablat: -0.026160201166464413,
  'factor(alloc)random': -0.26862460199701116,
  'factor(alloc)systematic': 0.077816516513950093,
};

let browser;
before(async () => {
  browser = await launch({ webmcp: false });
});
after(async () => {
  await browser?.close();
});

test('a pasted CSV with numeric text, a blank cell and an author column runs a formula meta-regression as metafor does', async () => {
  const { page, context, errors } = await openPage(browser);
  await page.fill('#your-data-csv', CSV);
  await page.selectOption('#your-data-measure', 'RR');
  await page.waitForFunction(() => /^13 records \(RR\)/.test(document.getElementById('your-data-status').textContent));

  await page.click('#tool-meta_regression details.tool-details > summary');
  // Choosing Your data hides the arguments it replaces (records, data_id, dataset).
  const dataFields = '#tool-meta_regression :is(textarea[name="records"], input[name="data_id"], select[name="dataset"])';
  const visible = () => page.$$eval(dataFields, (nodes) => nodes.map((n) => n.checkVisibility()));
  assert.deepEqual(await visible(), [true, true, true]);
  await page.check('#tool-meta_regression input[type="radio"][value="yours"]');
  assert.deepEqual(await visible(), [false, false, false]);
  // The moderators' hint says one thing: how the field reads what is typed.
  const hint = await page.textContent('#tool-meta_regression .field:has(input[name="mods"]) .hint');
  assert.match(hint, /formula starting with ~, or the terms separated by commas/);
  assert.doesNotMatch(hint, /s04/);
  await page.fill('#tool-meta_regression input[name="mods"]', '~ ablat + factor(alloc)');
  await page.click('#tool-meta_regression button[type="submit"]');
  const fit = JSON.parse(await resultOf(page, 'meta_regression'));
  // The blank latitude leaves t04 out, and says so; the text "44" is the number 44.
  assert.equal(fit.k, 12);
  assert.deepEqual(fit.omitted, [{ id: 't04', reason: 'ablat is missing' }]);
  assert.equal(fit.formula, '~ ablat + factor(alloc)');
  assert.deepEqual(fit.coefficients.map((c) => c.name), Object.keys(METAFOR));
  for (const c of fit.coefficients) {
    assert.ok(Math.abs(c.estimate - METAFOR[c.name]) < 1e-8, `${c.name}: ${c.estimate} vs metafor ${METAFOR[c.name]}`);
  }
  // The same answer as the command line on the same CSV.
  const dir = mkdtempSync(join(tmpdir(), 'as-meant-'));
  writeFileSync(join(dir, 'bcg.csv'), CSV);
  const cli = JSON.parse(exemplar('call', 'meta_regression', '{"mods":"~ ablat + factor(alloc)"}', '--records', join(dir, 'bcg.csv'), '--measure', 'RR'));
  assert.deepEqual(
    fit.coefficients.map((c) => c.estimate),
    cli.coefficients.map((c) => c.estimate),
  );

  // A subset and the author column as the forest plot's study labels.
  await page.click('#tool-forest_plot details.tool-details > summary');
  await page.check('#tool-forest_plot input[type="radio"][value="yours"]');
  await page.fill('#tool-forest_plot input[name="slab"]', 'author');
  await page.fill('#tool-forest_plot textarea[name="subset"]', '{"column": "alloc", "in": ["random"]}');
  await page.click('#tool-forest_plot button[type="submit"]');
  const forest = await plotOf(page, 'forest_plot');
  const text = await forest.evaluate((svg) => svg.textContent);
  assert.match(text, /Aronson/);
  assert.doesNotMatch(text, /Stein/, 'Stein (alternate allocation) is outside the subset');
  const result = JSON.parse(await resultOf(page, 'forest_plot'));
  assert.equal(result.fit.dataset.subset, 'alloc in "random": 7 of 13 records');
  await page.screenshot({ path: join(ARTIFACTS, 'your-data-as-meant.png'), fullPage: false });
  await context.close();
  assert.deepEqual(errors, []);
});
