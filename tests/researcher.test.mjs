// A researcher's session in Your data's workspace (issue 45 item 4), at desktop and phone
// width: a person pastes dat.bcg's counts, picks a measure, fits a random-effects model,
// draws a forest plot with columns beside the labels (ticked, not typed) and a funnel plot
// with contours, and downloads the figures: the SVG always, PNG and PDF when the build has
// the figures export. Each result leads with its headline, figure and printed summary, its
// provenance folded below. No JSON is typed anywhere. The numbers are the command line's.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACTS, exemplar, launch, ledgerVerified, openPage } from './helpers.mjs';

// dat.bcg (metadat): the 13 BCG trials' 2x2 counts, the first author's surname as `author`.
const CSV = [
  'trial,author,year,tpos,tneg,cpos,cneg,ablat,alloc',
  '1,Aronson,1948,4,119,11,128,44,random',
  '2,Ferguson,1949,6,300,29,274,55,random',
  '3,Rosenthal,1960,3,228,11,209,42,random',
  '4,Hart,1977,62,13536,248,12619,52,random',
  '5,Frimodt-Moller,1973,33,5036,47,5761,13,alternate',
  '6,Stein,1953,180,1361,372,1079,44,alternate',
  '7,Vandiviere,1973,8,2537,10,619,19,random',
  '8,TPT,1980,505,87886,499,87892,13,random',
  '9,Coetzee,1968,29,7470,45,7232,27,random',
  '10,Rosenthal,1961,17,1699,65,1600,42,systematic',
  '11,Comstock,1974,186,50448,141,27197,18,systematic',
  '12,Comstock,1969,5,2493,3,2338,33,systematic',
  '13,Comstock,1976,27,16886,29,17825,33,systematic',
].join('\n');
// The same records as the command line reads them: escalc's column names.
const NAMED = CSV.replace('tpos,tneg,cpos,cneg', 'ai,bi,ci,di');

const WS = '#your-data-workspace';

let browser;
let dir;
before(async () => {
  browser = await launch({ webmcp: false });
  dir = mkdtempSync(join(tmpdir(), 'researcher-'));
  writeFileSync(join(dir, 'bcg.csv'), NAMED);
});
after(async () => {
  await browser?.close();
});

/** The command line's run of `tool` with `args` on the same records. */
const cli = (tool, args, ...more) => exemplar('call', tool, JSON.stringify(args), '--records', join(dir, 'bcg.csv'), '--measure', 'RR', ...more);

/** Whether the build has the figures export (the whole module's own, or a figures module the page names), looked up apart from the page's code. */
async function figuresExportPresent(page) {
  return page.evaluate(async () => {
    const full = await import('/www/pkg/full/exemplar_wasm.js');
    if (typeof (full.render_figure ?? full.renderFigure) === 'function') return true;
    const { FIGURES_GLUE } = await import('/www/figures.js');
    if (!FIGURES_GLUE) return false;
    const separate = await import(new URL(FIGURES_GLUE, new URL('/www/figures.js', location.href)).href);
    return typeof (separate.render_figure ?? separate.renderFigure) === 'function';
  });
}

async function downloaded(page, click) {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  return { name: download.suggestedFilename(), bytes: Buffer.concat(chunks) };
}

/** Chooses `tool` in the workspace, lets `fill` set its form, runs it and returns its new card. */
async function runInWorkspace(page, tool, fill = async () => {}) {
  await page.selectOption('#workspace-tool', tool);
  const form = `${WS} form.workspace-form[data-tool="${tool}"]`;
  await page.waitForSelector(form);
  await fill(form);
  const before = await page.$$eval(`${WS} .result-card`, (cards) => cards.length);
  await page.click(`${form} button[type="submit"]`);
  await page.waitForFunction(
    ([sel, n]) => document.querySelectorAll(`${sel} .result-card`).length > n,
    [WS, before],
    { timeout: 20000 },
  );
  return `${WS} .result-card:first-child`;
}

for (const width of [1280, 390]) {
  test(`a researcher at ${width} px: CSV, measure, fit, forest with ilab, funnel with contours, downloads; no JSON typed`, async () => {
    const { page, context, errors } = await openPage(browser, { viewport: { width, height: 900 } });
    // Before any data the workspace only says what to do.
    assert.equal(await page.isVisible('#workspace-tool'), false);
    assert.match(await page.textContent('#workspace-waiting'), /Paste a CSV and choose a measure/);

    await page.fill('#your-data-csv', CSV);
    await page.selectOption('#your-data-measure', 'RR');
    // escalc's columns are matched by hand (the CSV names them its own way).
    for (const [column, source] of [['ai', 'tpos'], ['bi', 'tneg'], ['ci', 'cpos'], ['di', 'cneg']]) {
      await page.waitForSelector(`#your-data-map-${column}`);
      await page.selectOption(`#your-data-map-${column}`, source);
    }
    await page.waitForFunction(() => /^13 records \(RR\)/.test(document.getElementById('your-data-status').textContent));
    await page.waitForSelector('#workspace-tool', { state: 'visible' });

    // The fit: the estimator chosen by metafor's name, each with its meaning.
    const methods = await page.$$eval(`${WS} form[data-tool="fit_random_effects"] select[name="method"] option`, (o) => o.map((x) => x.textContent));
    assert.ok(methods.includes('REML: restricted maximum likelihood (metafor\u2019s default)'), methods.join(' | '));
    assert.ok(methods.some((m) => /^DL: DerSimonian/.test(m)), methods.join(' | '));
    const fitCard = await runInWorkspace(page, 'fit_random_effects', async (form) => {
      await page.selectOption(`${form} select[name="method"]`, JSON.stringify('DL'));
    });
    const cliFit = cli('fit_random_effects', { method: 'DL' }, '--text');
    const headline = (await page.textContent(`${fitCard} .headline`)).trim();
    assert.equal(headline, cliFit.split('\n')[0]);
    assert.match(headline, /^RR 0\.\d\d \[0\.\d\d, 0\.\d\d\] \(95% CI; random-effects DL, k = 13\)$/);
    // The result as a researcher reads it: headline, figure, printed summary; provenance last, folded.
    await page.waitForSelector(`${fitCard} figure.plot svg g.row[data-id]`, { timeout: 15000 });
    const order = await page.$eval(fitCard, (card) =>
      [...card.children].map((n) => n.className || n.tagName.toLowerCase()).filter((c) => c !== 'card-head'),
    );
    assert.deepEqual(order, ['headline', 'figure-slot', 'summary', 'provenance']);
    assert.equal(await page.$eval(`${fitCard} details.provenance`, (d) => d.open), false);
    assert.equal((await page.textContent(`${fitCard} pre.summary`)).trim(), cliFit.split('\n').slice(1).join('\n').trim());
    // The provenance: the records' SHA-256 as the command line computes it, and the call as JSON.
    const fitJson = JSON.parse(cli('fit_random_effects', { method: 'DL' }));
    await page.click(`${fitCard} details.provenance > summary`);
    assert.match(await page.textContent(`${fitCard} details.provenance dl`), new RegExp(fitJson.dataset.sha256));
    const call = JSON.parse(await page.textContent(`${fitCard} pre.call`));
    assert.deepEqual(call.arguments, { method: 'DL' });
    assert.equal(call.tool, 'fit_random_effects');

    // The forest: study labels by author, the four counts beside them, ticked (a keyboard
    // tick among them), and only the randomized trials, chosen as a column and a value.
    const forestCard = await runInWorkspace(page, 'forest_plot', async (form) => {
      await page.selectOption(`${form} select[name="slab"]`, 'author');
      const tick = (field, value) => `${form} fieldset[data-name="${field}"] input[data-value='${JSON.stringify(value)}']`;
      await page.focus(tick('ilab', 'ai'));
      await page.keyboard.press('Space');
      for (const column of ['bi', 'ci', 'di']) await page.check(tick('ilab', column));
      await page.selectOption(`${form} .subset select`, 'alloc');
      await page.check(tick('subset-values', 'random'));
      // metafor forest()'s `at`, where the tool takes it (issue 45 item 1): typed as a list of numbers.
      if (await page.$(`${form} input[name="at"]`)) await page.fill(`${form} input[name="at"]`, '0.1, 0.25, 0.5, 1, 2');
    });
    const forest = await page.waitForSelector(`${forestCard} figure.plot svg`, { timeout: 15000 });
    // A plot's result: its headline, the figure, the provenance; nothing else between them.
    const forestParts = await page.$eval(forestCard, (card) =>
      [...card.childNodes].map((n) => (n.nodeType === Node.ELEMENT_NODE ? n.className || n.tagName.toLowerCase() : `text: ${n.textContent}`)),
    );
    assert.deepEqual(forestParts, ['card-head', 'headline', 'figure-slot', 'provenance']);
    const header = await forest.evaluate((svg) => [...svg.querySelectorAll('g.header text')].map((t) => t.textContent));
    for (const column of ['ai', 'bi', 'ci', 'di']) assert.ok(header.includes(column), header.join(' | '));
    const rows = await forest.evaluate((svg) => svg.querySelectorAll('g.row[data-id]').length);
    assert.equal(rows, 7, 'the 7 randomized trials');
    const forestText = await forest.evaluate((svg) => svg.textContent);
    assert.match(forestText, /Aronson/);
    assert.doesNotMatch(forestText, /Stein/, 'Stein (alternate allocation) is outside the subset');
    const forestCall = JSON.parse(await page.$eval(`${forestCard} pre.call`, (n) => n.textContent));
    assert.deepEqual(forestCall.arguments.ilab, ['ai', 'bi', 'ci', 'di']);
    assert.deepEqual(forestCall.arguments.subset, { column: 'alloc', in: ['random'] });
    // The same plot as the command line draws from the same call.
    const cliForest = JSON.parse(cli('forest_plot', forestCall.arguments));
    const svgFile = await downloaded(page, () => page.click(`${forestCard} a.figure-svg`));
    assert.equal(svgFile.name, 'forest_plot.svg');
    assert.equal(svgFile.bytes.toString('utf8'), cliForest.svg);

    // PNG and PDF: offered exactly when the build can write them.
    const present = await figuresExportPresent(page);
    // The export is looked for once, in the worker; the downloads say when the answer is in.
    await page.waitForSelector(`${forestCard} .figure-downloads[data-print]`, { state: 'attached' });
    assert.equal(await page.isVisible(`${forestCard} button.figure-png`), present);
    assert.equal(await page.isVisible(`${forestCard} button.figure-pdf`), present);
    if (present) {
      const png = await downloaded(page, () => page.click(`${forestCard} button.figure-png`));
      assert.equal(png.name, 'forest_plot.png');
      assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      const pdf = await downloaded(page, () => page.click(`${forestCard} button.figure-pdf`));
      assert.equal(pdf.name, 'forest_plot.pdf');
      assert.equal(pdf.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    }

    // The funnel with contours, typed as a list of numbers.
    const funnelCard = await runInWorkspace(page, 'funnel_plot', async (form) => {
      await page.fill(`${form} input[name="contours"]`, '0.9, 0.95, 0.99');
    });
    const funnel = await page.waitForSelector(`${funnelCard} figure.plot svg`, { timeout: 15000 });
    const funnelCall = JSON.parse(await page.$eval(`${funnelCard} pre.call`, (n) => n.textContent));
    assert.deepEqual(funnelCall.arguments, { contours: [0.9, 0.95, 0.99] });
    const cliFunnel = JSON.parse(cli('funnel_plot', funnelCall.arguments));
    assert.equal(await funnel.evaluate((svg) => svg.outerHTML.length > 0), true);
    const funnelSvg = await downloaded(page, () => page.click(`${funnelCard} a.figure-svg`));
    assert.equal(funnelSvg.bytes.toString('utf8'), cliFunnel.svg);
    assert.match(cliFunnel.svg, /contour/i);

    // Newest first; every run in the audit ledger.
    assert.deepEqual(await page.$$eval(`${WS} .result-card`, (cards) => cards.map((c) => c.dataset.tool)), ['funnel_plot', 'forest_plot', 'fit_random_effects']);
    await ledgerVerified(page, 3);

    // Never JSON: no text area in the forms used, and nothing typed that reads as JSON.
    const typed = await page.$$eval(`${WS} form.workspace-form`, (forms) =>
      forms.flatMap((f) => [...f.querySelectorAll('textarea, input[type="text"]')].map((n) => ({ tag: n.tagName, value: n.value }))),
    );
    assert.ok(typed.every((t) => t.tag !== 'TEXTAREA'), JSON.stringify(typed));
    assert.ok(typed.every((t) => !/^\s*[[{"]/.test(t.value)), JSON.stringify(typed));
    // Every control of the workspace has a name a screen reader reads.
    const unnamed = await page.$$eval(`${WS} input, ${WS} select, ${WS} button`, (nodes) =>
      nodes.filter((n) => n.checkVisibility() && !n.labels?.length && !n.getAttribute('aria-label') && !n.textContent.trim()).map((n) => n.outerHTML.slice(0, 80)),
    );
    assert.deepEqual(unnamed, []);
    // The page never scrolls sideways; the figures fit the screen.
    const layout = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      figures: [...document.querySelectorAll('#your-data-workspace figure.plot svg')].map((svg) => Math.round(svg.getBoundingClientRect().right - document.documentElement.clientWidth)),
    }));
    assert.ok(layout.scroll <= 0, `the page scrolls sideways by ${layout.scroll} px`);
    assert.ok(layout.figures.every((overhang) => overhang <= 1), `a figure overhangs the screen: ${layout.figures.join(', ')}`);
    await (await page.$(WS)).screenshot({ path: join(ARTIFACTS, `researcher-${width}.png`) });
    // Changed data: the results shown say they are of the data as it was.
    await page.fill('#your-data-csv', CSV.split('\n').slice(0, 6).join('\n'));
    await page.waitForFunction(() => /^5 records \(RR\)/.test(document.getElementById('your-data-status').textContent));
    await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .result-card.stale .stale-note`).length === 3, WS);
    await context.close();
    assert.deepEqual(errors, []);
  });
}
