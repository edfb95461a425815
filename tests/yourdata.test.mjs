// Your data: a person brings a CSV of study data, chooses the measure, sees
// the records with each bad row's error, and runs the tools on them; an agent
// does the same through WebMCP. Nothing is stored and nothing is sent.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACTS, ORIGIN, agentCall, exemplar, launch, openPage, plotOf, resultOf, storageIsEmpty } from './helpers.mjs';

// Means and SDs of two groups, one row per study; s2's SD is negative (a
// typing error), and the study names are in a column called "study".
const CSV = [
  'study;mean_t;sd1i;n1i;m2i;sd2i;n2i;dose',
  's1;10,2;2,1;20;9,1;2,4;22;5',
  's2;3,1;-1;12;3,9;1,5;12;10',
  's3;12;4;12;14,5;3,5;15;20',
  's4;5;1;30;4,4;1,2;28;15',
  's5;7,7;2,2;16;6,1;2;18;25',
].join('\r\n');

/** The height of the page as loaded at 1280×900 before "Your data" and the folded tool list (measured). */
const HEIGHT_BEFORE = 16291;

let browser;
before(async () => {
  browser = await launch({ webmcp: false });
});
after(async () => {
  await browser?.close();
});

test('the page as loaded is no taller than before, with the tools folded, grouped and indexed', async () => {
  const { page, context, errors } = await openPage(browser);
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(height <= HEIGHT_BEFORE, `the page is ${height}px tall, more than ${HEIGHT_BEFORE}px`);
  // Every tool shows its name, title and summary; its form is one click away.
  const tools = await page.$$eval('#tool-list article.tool', (articles) =>
    articles.map((a) => ({
      title: a.querySelector('h4').textContent,
      summary: a.querySelector('p.summary')?.textContent ?? '',
      open: a.querySelector('details.tool-details').open,
    })),
  );
  const names = JSON.parse(exemplar('tools')).map((t) => t.name);
  assert.equal(tools.length, names.length);
  for (const t of tools) {
    assert.ok(t.summary.length > 10 && !t.open, JSON.stringify(t));
  }
  // Groups in order, the benchmark's own tools first; the index links to each tool.
  const groups = await page.$$eval('#tool-list section.tool-group h3', (h) => h.map((x) => x.textContent));
  assert.equal(groups[0], "The benchmark's tools");
  const indexed = await page.$$eval('nav.tool-index a[href^="#tool-"]', (a) => a.map((x) => x.getAttribute('href').slice(6)));
  assert.deepEqual(indexed, names);
  // Keyboard: Tab to a tool's summary, Enter opens its form and description.
  await page.focus('#tool-egger_test details.tool-details > summary');
  await page.keyboard.press('Enter');
  assert.equal(await page.$eval('#tool-egger_test details.tool-details', (d) => d.open), true);
  assert.equal(await page.isVisible('#tool-egger_test button[type="submit"]'), true);
  // No result anywhere, and Your data is empty.
  assert.equal(await page.$$eval('pre.result:not(:empty), figure.plot, #your-data-table table', (n) => n.length), 0);
  assert.equal(await page.textContent('#your-data-status'), 'No data yet.');
  await context.close();
  assert.deepEqual(errors, []);
});

test('a person pastes means and SDs, chooses SMD, sees the records and fits them with a forest plot', async () => {
  const { page, context, requests, errors } = await openPage(browser);
  await page.fill('#your-data-csv', CSV);
  await page.selectOption('#your-data-measure', 'SMD');
  // mean_t is not named like m1i: it is mapped by hand, and so is the id.
  await page.waitForSelector('#your-data-map-m1i');
  assert.equal(await page.inputValue('#your-data-map-m1i'), '');
  assert.equal(await page.inputValue('#your-data-map-sd1i'), 'sd1i');
  await page.selectOption('#your-data-map-m1i', 'mean_t');
  await page.selectOption('#your-data-map-id', 'study');
  await page.waitForFunction(() => document.querySelectorAll('#your-data-table tbody tr').length === 5);
  assert.match(await page.textContent('#your-data-status'), /^4 records \(SMD\) from 5 rows; 1 row gives no record/);
  const rows = await page.$$eval('#your-data-table tbody tr', (trs) =>
    trs.map((tr) => ({ bad: tr.classList.contains('bad'), cells: [...tr.cells].map((c) => c.textContent) })),
  );
  assert.deepEqual(rows.map((r) => r.bad), [false, true, false, false, false]);
  assert.equal(rows[1].cells.at(-1), 'line 3: sd1i is -1; it cannot be negative');
  // The ids are the study column's, shown once (no second id column).
  assert.deepEqual(rows.filter((r) => !r.bad).map((r) => r.cells[1]), ['s1', 's3', 's4', 's5']);
  const headings = await page.$$eval('#your-data-table thead th', (th) => th.map((x) => x.textContent));
  assert.equal(headings.filter((h) => h === 'id' || h === 'study').length, 1, headings.join(','));
  // metafor 3.8-1, escalc("SMD", ...) of s1 (crates/meta-analysis/tests/fixtures/escalc.json).
  assert.ok(Math.abs(Number(rows[0].cells.at(-3)) - 0.47701210405237254) < 1e-12);
  await page.screenshot({ path: join(ARTIFACTS, 'your-data.png'), fullPage: false });

  // Downloads of the records, made in the page.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#your-data-downloads button[data-download="records.csv"]')]);
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  const csv = Buffer.concat(chunks).toString('utf8');
  assert.match(csv, /^id,yi,vi,measure,m1i,sd1i,n1i,m2i,sd2i,n2i,dose\ns1,0\.477/);
  assert.equal(csv.trim().split('\n').length, 5);

  // The random-effects fit on these records, from its form, with its forest plot.
  await page.click('#tool-fit_random_effects details.tool-details > summary');
  await page.check('#tool-fit_random_effects input[type="radio"][value="yours"]');
  await page.click('#tool-fit_random_effects button[type="submit"]');
  const forest = await plotOf(page, 'fit_random_effects');
  assert.deepEqual(await forest.evaluate((svg) => [...svg.querySelectorAll('g.row[data-id]')].map((g) => g.dataset.id)), ['s1', 's3', 's4', 's5']);
  const fit = JSON.parse(await resultOf(page, 'fit_random_effects'));
  assert.equal(fit.k, 4);
  assert.equal(fit.dataset.name, 'custom records');
  // The same numbers as the command line computes from the good rows.
  const dir = mkdtempSync(join(tmpdir(), 'your-data-'));
  const good = CSV.split('\r\n').filter((_, i) => i !== 2).join('\n').replace('mean_t', 'm1i').replace('study', 'id');
  writeFileSync(join(dir, 'good.csv'), good);
  const cli = JSON.parse(exemplar('call', 'fit_random_effects', '{}', '--records', join(dir, 'good.csv'), '--measure', 'SMD'));
  assert.equal(fit.estimate, cli.estimate);
  assert.equal(fit.tau2, cli.tau2);
  // Nothing needed in the records field; the frozen dataset is still the default elsewhere.
  await page.click('#tool-egger_test details.tool-details > summary');
  await page.click('#tool-egger_test button[type="submit"]');
  assert.equal(JSON.parse(await resultOf(page, 'egger_test')).dataset.name, 'dat.raudenbush1985');
  // A meta-regression on a column of the CSV (dose), on the same records, with its bubble plot.
  await page.click('#tool-meta_regression details.tool-details > summary');
  await page.check('#tool-meta_regression input[type="radio"][value="yours"]');
  await page.fill('#tool-meta_regression input[name="mods"]', 'dose');
  await page.click('#tool-meta_regression button[type="submit"]');
  const regression = JSON.parse(await resultOf(page, 'meta_regression'));
  assert.equal(regression.k, 4);
  assert.deepEqual(regression.coefficients.map((c) => c.name), ['intercept', 'dose']);
  const cliRegression = JSON.parse(
    exemplar('call', 'meta_regression', '{"mods":["dose"]}', '--records', join(dir, 'good.csv'), '--measure', 'SMD'),
  );
  assert.equal(regression.coefficients[1].estimate, cliRegression.coefficients[1].estimate);
  await plotOf(page, 'meta_regression');

  // A CSV picked from a file is read in the page too.
  writeFileSync(join(dir, 'cor.csv'), 'ri,ni\n0.3,50\n0.5,30\n1.2,40\n');
  await page.setInputFiles('#your-data-file', join(dir, 'cor.csv'));
  await page.selectOption('#your-data-measure', 'ZCOR');
  await page.waitForFunction(() => /^2 records \(ZCOR\)/.test(document.getElementById('your-data-status').textContent));
  assert.match(await page.textContent('#your-data-table tbody tr.bad'), /ri is 1\.2; a correlation must lie in \[-1, 1\]/);

  assert.deepEqual(await storageIsEmpty(page, context), {
    localStorage: 0,
    sessionStorage: 0,
    indexedDB: 0,
    cacheStorage: 0,
    cookie: '',
    cookies: 0,
  });
  const foreign = requests.filter((u) => !u.startsWith(`${ORIGIN}/`) && !u.startsWith('blob:'));
  assert.deepEqual(foreign, []);
  // Nothing of the data went to the server: only the page's own files were requested.
  assert.ok(requests.every((u) => !/\?.*(csv|s1)|records/.test(u)), requests.join('\n'));
  await context.close();
  assert.deepEqual(errors, []);
});

/**
 * A CSV of `rows` studies (two-group means, SDs and sizes, named as escalc names them for
 * SMD), every `badEvery`th with a negative SD; deterministic.
 */
function largeCsv(rows, badEvery) {
  const lines = ['id,m1i,sd1i,n1i,m2i,sd2i,n2i'];
  for (let i = 0; i < rows; i += 1) {
    const sd1 = (i + 1) % badEvery === 0 ? '-1' : (1 + ((i * 37) % 100) / 100).toFixed(2);
    lines.push(`r${i},${(10 + Math.sin(i)).toFixed(6)},${sd1},${10 + (i % 190)},${(10 + Math.cos(i)).toFixed(6)},1.5,${12 + (i % 150)}`);
  }
  return `${lines.join('\n')}\n`;
}

test('a pasted CSV of 20,000 rows is computed in the engine\u2019s worker and shown a page at a time; the page stays responsive', async () => {
  const ROWS = 20000; // Your data's documented limit
  const BAD_EVERY = 997;
  const bad = Math.floor(ROWS / BAD_EVERY);
  const csv = largeCsv(ROWS, BAD_EVERY);
  const { page, context, errors } = await openPage(browser);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
  await page.selectOption('#your-data-measure', 'SMD');
  await page.evaluate((text) => navigator.clipboard.writeText(text), csv);
  // What Your data's status said when the page handled an input elsewhere.
  await page.evaluate(() => {
    window.__statusAtInput = [];
    document.getElementById('answer-pdf').addEventListener('input', () => window.__statusAtInput.push(document.getElementById('your-data-status').textContent));
  });
  await page.focus('#your-data-csv');
  await page.keyboard.press('Control+V');
  // The view is computed in the worker: meanwhile the page takes a person's typing.
  await page.waitForFunction(() => document.getElementById('your-data-status').classList.contains('pending'));
  await page.fill('#answer-pdf', 'typed while Your data was being computed');
  await page.waitForFunction(() => / from \d+ rows/.test(document.getElementById('your-data-status').textContent), null, { timeout: 60000 });
  assert.deepEqual(await page.evaluate(() => window.__statusAtInput), ['Computing the records in the engine\u2026']);
  await page.waitForSelector('#your-data-range');

  const status = await page.textContent('#your-data-status');
  assert.match(status, new RegExp(`^${ROWS - bad} records \\(SMD\\) from ${ROWS} rows; ${bad} rows give no record`));
  // The CSV is held, not laid out in the text area; the table holds one page of rows, not 20,000.
  assert.equal(await page.inputValue('#your-data-csv'), '');
  assert.match(await page.textContent('#your-data-held'), new RegExp(`^A CSV of ${csv.length.toLocaleString('en')} characters is held in memory`));
  const perPage = await page.evaluate(async () => (await import('/www/your-data.js')).ROWS_PER_PAGE);
  assert.ok(perPage < ROWS);
  const shown = () =>
    page.$$eval('#your-data-table tbody tr', (trs) => trs.map((tr) => ({ bad: tr.classList.contains('bad'), cells: [...tr.cells].map((c) => c.textContent) })));
  let rows = await shown();
  assert.equal(rows.length, perPage);
  assert.equal(await page.textContent('#your-data-table caption'), `${ROWS - bad} records from ${ROWS} rows`);
  assert.equal(await page.textContent('#your-data-range'), `Rows 1\u2013${perPage} of ${ROWS} rows`);
  // A row, number for number as the command line computes it from the same CSV row.
  const cells = csv.split('\n')[1].split(',');
  const [m1i, sd1i, n1i, m2i, sd2i, n2i] = cells.slice(1).map(Number);
  const cli = JSON.parse(exemplar('call', 'compute_effect_sizes', JSON.stringify({ measure: 'SMD', data: [{ id: cells[0], m1i, sd1i, n1i, m2i, sd2i, n2i }] })));
  assert.deepEqual(rows[0].cells.slice(0, 2), ['2', 'r0']);
  assert.equal(rows[0].cells[1], 'r0');
  assert.equal(rows[0].cells.at(-3), String(cli.records[0].yi));
  assert.equal(rows[0].cells.at(-2), String(cli.records[0].vi));

  // The next page, then only the rows that give no record, each asked of the worker.
  await page.click('#your-data-next');
  await page.waitForFunction((n) => document.getElementById('your-data-range')?.textContent.startsWith(`Rows ${n + 1}\u2013`), perPage);
  rows = await shown();
  assert.equal(rows[0].cells[0], String(perPage + 2));
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'your-data-next');
  await page.check('#your-data-errors-only');
  await page.waitForFunction(() => /that give no record$/.test(document.getElementById('your-data-range')?.textContent));
  rows = await shown();
  assert.equal(rows.length, bad);
  assert.ok(rows.every((r) => r.bad));
  assert.equal(rows[0].cells.at(-1), `line ${BAD_EVERY + 1}: sd1i is -1; it cannot be negative`);

  // The records as a download, and a tool run on them from its form, as the command line fits them.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#your-data-downloads button[data-download="records.csv"]')]);
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  assert.equal(Buffer.concat(chunks).toString('utf8').trim().split('\n').length, ROWS - bad + 1);
  await page.click('#tool-fit_random_effects details.tool-details > summary');
  await page.check('#tool-fit_random_effects input[type="radio"][value="yours"]');
  await page.click('#tool-fit_random_effects button[type="submit"]');
  await page.waitForFunction(() => /"k": \d+/.test(document.querySelector('#tool-fit_random_effects pre.result')?.textContent ?? ''), null, { timeout: 60000 });
  const fit = JSON.parse(await resultOf(page, 'fit_random_effects'));
  assert.equal(fit.k, ROWS - bad);
  const dir = mkdtempSync(join(tmpdir(), 'your-data-large-'));
  writeFileSync(join(dir, 'large.csv'), csv.split('\n').filter((line) => !line.includes(',-1,')).join('\n'));
  const cliFit = JSON.parse(exemplar('call', 'fit_random_effects', '{}', '--records', join(dir, 'large.csv'), '--measure', 'SMD'));
  assert.equal(cliFit.k, ROWS - bad);
  assert.ok(Math.abs(fit.estimate - cliFit.estimate) <= 1e-12 * Math.abs(cliFit.estimate), `${fit.estimate} vs ${cliFit.estimate}`);

  // Cleared, Your data is empty again.
  await page.click('#your-data-held button');
  await page.waitForFunction(() => document.getElementById('your-data-status').textContent === 'No data yet.');
  assert.equal(await page.$$eval('#your-data-table tbody tr', (trs) => trs.length), 0);
  await context.close();
  assert.deepEqual(errors, []);
});

// Issue 29 item 8: a cell of 4 MB (an id) was laid out whole in the table: a main-thread task
// of about 2 s (1 MB: 0.6 s). The engine's view carries it cut, and says so; the records
// keep it whole.
test('a pasted CSV with a 4 MB cell is shown with that cell cut, without a long task; the records keep it whole', async () => {
  const id = `s${'\u00e9x'.repeat(2 * 1024 * 1024)}`; // 4,194,305 characters
  const csv = `id,m1i,sd1i,n1i,m2i,sd2i,n2i,note\n${id},10,2,20,9,2,22,plain\nshort,11,2,20,9,2,22,${'n'.repeat(1000)}\n`;
  const { page, context, errors } = await openPage(browser);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
  await page.selectOption('#your-data-measure', 'SMD');
  await page.evaluate((text) => navigator.clipboard.writeText(text), csv);
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
  });
  await page.focus('#your-data-csv');
  await page.keyboard.press('Control+V');
  await page.waitForFunction(() => /^2 records \(SMD\) from 2 rows/.test(document.getElementById('your-data-status').textContent), null, { timeout: 60000 });
  await page.waitForSelector('#your-data-shortened');
  // A few frames after the table is drawn, for its layout and paint.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 200)))));
  const longTasks = await page.evaluate(() => window.__longTasks);
  assert.ok(Math.max(0, ...longTasks) < 250, `main-thread long tasks of ${longTasks.join(', ')} ms`);
  const cells = await page.$$eval('#your-data-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  const cut = `${id.slice(0, 200)}\u2026 (${id.length} characters in all)`;
  assert.equal(cells[0][1], cut, 'the field');
  assert.equal(cells[0].at(-4), cut, 'the id');
  assert.equal(cells[1][8], `${'n'.repeat(200)}\u2026 (1000 characters in all)`);
  assert.equal(cells[1][2], '11');
  assert.equal(
    await page.textContent('#your-data-shortened'),
    '3 cells or column names are longer than 200 characters and shown cut (\u2026); the records, their downloads and the tools have them whole.',
  );
  // The records have the id whole.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#your-data-downloads button[data-download="records.json"]')]);
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  assert.equal(JSON.parse(Buffer.concat(chunks).toString('utf8'))[0].id, id);
  await context.close();
  assert.deepEqual(errors, []);
});

test('Your data: escalc\u2019s drop00 and vtype change the records as the command line computes them', async () => {
  const { page, errors } = await openPage(browser);
  // Three 2x2 tables; t2 has no events in either group.
  const tables = ['id,ai,bi,ci,di', 't1,4,16,8,12', 't2,0,20,0,20', 't3,2,18,5,15'].join('\n');
  await page.fill('#your-data-csv', tables);
  await page.selectOption('#your-data-measure', 'OR');
  await page.waitForFunction(() => /^3 records \(OR\)/.test(document.getElementById('your-data-status').textContent));
  await page.click('#your-data details.options > summary');
  // OR reads drop00 and has no vtype: the page shows the one and hides the other.
  assert.equal(await page.isVisible('#your-data-drop00'), true);
  assert.equal(await page.isVisible('#your-data-vtype'), false);
  await page.check('#your-data-drop00');
  await page.waitForFunction(() => /^2 records \(OR\)/.test(document.getElementById('your-data-status').textContent));
  const dir = mkdtempSync(join(tmpdir(), 'your-data-options-'));
  writeFileSync(join(dir, 'tables.csv'), tables);
  const cli = JSON.parse(exemplar('escalc', '--measure', 'OR', '--drop00', join(dir, 'tables.csv')));
  const shownIds = await page.$$eval('#your-data-table tbody tr:not(.bad)', (trs) => trs.map((tr) => tr.cells[1].textContent));
  assert.deepEqual(shownIds, cli.records.map((r) => r.id));
  assert.deepEqual(shownIds, ['t1', 't3']);

  // SMD's vtypes: UB changes vi as escalc(vtype = "UB") does, and the records say so.
  const means = ['id,m1i,sd1i,n1i,m2i,sd2i,n2i', 'a,10.2,2.1,20,9.1,2.4,22', 'b,12,4,12,14.5,3.5,15'].join('\n');
  await page.fill('#your-data-csv', means);
  await page.selectOption('#your-data-measure', 'SMD');
  await page.waitForFunction(() => /^2 records \(SMD\)/.test(document.getElementById('your-data-status').textContent));
  assert.equal(await page.isVisible('#your-data-vtype'), true);
  const vi = () => page.$$eval('#your-data-table tbody tr', (trs) => trs.map((tr) => Number(tr.cells[tr.cells.length - 2].textContent)));
  const before = await vi();
  await page.selectOption('#your-data-vtype', 'UB');
  await page.waitForFunction((old) => {
    const cells = [...document.querySelectorAll('#your-data-table tbody tr')].map((tr) => Number(tr.cells[tr.cells.length - 2].textContent));
    return cells.length === 2 && cells[0] !== old;
  }, before[0]);
  writeFileSync(join(dir, 'means.csv'), means);
  const ub = JSON.parse(exemplar('escalc', '--measure', 'SMD', '--vtype', 'UB', join(dir, 'means.csv')));
  const after = await vi();
  for (const [i, record] of ub.records.entries()) {
    assert.ok(Math.abs(after[i] - record.vi) < 1e-12, `${record.id}: page ${after[i]}, CLI ${record.vi}`);
  }
  assert.notDeepEqual(after, before);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Your data without records: running a form on it says what to do', async () => {
  const { page, context } = await openPage(browser);
  await page.click('#tool-fit_random_effects details.tool-details > summary');
  await page.check('#tool-fit_random_effects input[type="radio"][value="yours"]');
  await page.click('#tool-fit_random_effects button[type="submit"]');
  assert.match(await resultOf(page, 'fit_random_effects'), /^Not run: Your data has no records yet/);
  await page.fill('#your-data-csv', 'a,b\n1,2,3\n');
  await page.waitForSelector('#your-data-status.alarm');
  assert.equal(await page.textContent('#your-data-status'), 'The CSV could not be read: line 2, column 3: the row has 3 fields, the header 2');
  await context.close();
});

test('Your data: a continuity correction that is not a number is named, not replaced by the default', async () => {
  const { page, context, errors } = await openPage(browser);
  await page.fill('#your-data-csv', 'ai,bi,ci,di\n0,10,3,9\n4,6,2,8\n');
  await page.selectOption('#your-data-measure', 'OR');
  await page.waitForFunction(() => /^2 records \(OR\)/.test(document.getElementById('your-data-status').textContent));
  await page.click('#your-data details.options > summary');
  await page.fill('#your-data-add', '0,5');
  await page.waitForSelector('#your-data-status.alarm');
  assert.match(await page.textContent('#your-data-status'), /add must be a number such as 0\.5 \(a decimal point, not a comma\), got "0,5"/);
  await page.fill('#your-data-add', '1');
  await page.waitForFunction(() => /^2 records \(OR\)/.test(document.getElementById('your-data-status').textContent));
  await context.close();
  assert.deepEqual(errors, []);
});

test('an agent computes effect sizes through WebMCP and fits them', async () => {
  const agentBrowser = await launch({ webmcp: true });
  try {
    const { page, errors } = await openPage(agentBrowser);
    const data = [
      { id: 'a', ai: 12, bi: 88, ci: 20, di: 80 },
      { id: 'b', ai: 0, n1i: 20, ci: 4, n2i: 20 },
      { id: 'c', ai: 5, bi: 45, ci: 9, di: 41 },
    ];
    const es = await agentCall(page, 'compute_effect_sizes', { measure: 'OR', data });
    assert.ok(!es.isError, JSON.stringify(es));
    assert.equal(es.structuredContent.k, 3);
    // metafor 3.8-1: escalc("OR", ...) with the default 1/2 added to b's table (fixtures: or, row 2).
    assert.ok(Math.abs(es.structuredContent.records[1].yi - -2.4142890825740473) < 1e-12);
    const records = es.structuredContent.records.map(({ id, yi, vi }) => ({ id, yi, vi }));
    const fit = await agentCall(page, 'fit_random_effects', { records });
    assert.ok(!fit.isError, JSON.stringify(fit));
    assert.equal(fit.structuredContent.k, 3);
    const bad = await agentCall(page, 'compute_effect_sizes', { measure: 'OR', data: [{ ai: 30, n1i: 20, ci: 1, di: 3 }] });
    assert.ok(bad.isError);
    assert.match(bad.content[0].text, /row 1: ai is 30, more than n1i = 20/);
    assert.deepEqual(errors, []);
  } finally {
    await agentBrowser.close();
  }
});
