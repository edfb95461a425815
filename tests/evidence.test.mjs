// Living Evidence: the summary of recorded runs. Fixture records are made the
// way a person makes them, with the `exemplar` command (record, then runs
// summary), and the page must show exactly the summary's numbers.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACTS, exemplar, launch, load, storageIsEmpty } from './helpers.mjs';

let browser;
let dir;
let summary;

/** Three replicate pairs: a wrong field, a parse failure, and both right; order alternated. */
function recordFixtures() {
  dir = mkdtempSync(join(tmpdir(), 'exemplar-runs-'));
  const reference = JSON.parse(exemplar('reference'));
  const wrong = structuredClone(reference);
  wrong.overall.estimate += 0.01;
  const answers = {
    right: JSON.stringify(reference, null, 2),
    wrong: JSON.stringify(wrong),
    prose: `Here is my answer: ${JSON.stringify(reference)}`,
  };
  for (const [name, text] of Object.entries(answers)) writeFileSync(join(dir, `${name}.txt`), text);
  const runs = [
    ['p1', 'pdf', 'first', 'wrong', 61000, 9100],
    ['p1', 'webmcp', 'second', 'right', 42000, 7000],
    ['p2', 'webmcp', 'first', 'right', 40000, 6900],
    ['p2', 'pdf', 'second', 'prose', 65000, 9800],
    ['p3', 'pdf', 'first', 'right', 58000, 9000],
    ['p3', 'webmcp', 'second', 'right', 39000, 7100],
  ];
  for (const [pair, condition, order, answer, latency, tokens] of runs) {
    exemplar(
      'record',
      '--dir', join(dir, 'runs'),
      '--condition', condition,
      '--pair', pair,
      '--order', order,
      '--model', 'fixture-model',
      '--settings', 'temperature 0',
      '--host', 'test host',
      '--latency-ms', String(latency),
      '--tokens', String(tokens),
      '--date', '2026-12-01',
      join(dir, `${answer}.txt`),
    );
  }
  return exemplar('runs', 'summary', '--dir', join(dir, 'runs'));
}

before(async () => {
  browser = await launch({ webmcp: false });
});
after(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the default build shows the summary of the committed runs/, the same numbers as `exemplar runs summary`', async () => {
  const shipped = JSON.parse(exemplar('runs', 'summary'));
  const page = await browser.newPage();
  await load(page);
  const body = await page.$eval('#evidence-body', (b) => ({
    text: b.innerText,
    rows: [...b.querySelectorAll('table.evidence-conditions tbody tr')].map((r) => ({
      condition: r.dataset.condition,
      runs: r.cells[1].textContent.trim(),
      fully: [...r.cells[4].querySelectorAll('[data-value]')].map((v) => v.dataset.value),
    })),
    notes: [...b.querySelectorAll('.evidence-notes li')].map((l) => l.textContent),
  }));
  if (shipped.total_runs === 0) {
    assert.equal(body.text, 'No runs recorded.');
  } else {
    assert.doesNotMatch(body.text, /No runs recorded/);
    assert.deepEqual(
      body.rows,
      shipped.conditions.map((c) => ({ condition: c.condition, runs: String(c.runs), fully: [String(c.fully_correct)] })),
    );
    // The protocol's caveats are shown with the counts: a handful of runs is descriptive only.
    assert.deepEqual(body.notes, shipped.notes);
    assert.ok(body.notes.some((n) => /handful of runs/.test(n)), body.notes.join('\n'));
  }
  await page.close();
});

test('with no records, Living Evidence says exactly "No runs recorded." and nothing else', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'exemplar-no-runs-'));
  try {
    const text = exemplar('runs', 'summary', '--dir', empty);
    assert.equal(JSON.parse(text).total_runs, 0);
    const page = await browser.newPage();
    await page.route('**/runs-summary.json', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: text }),
    );
    await load(page);
    const section = await page.$eval('#living-evidence', (s) => ({
      children: [...s.children].map((n) => n.tagName),
      body: s.querySelector('#evidence-body').innerText,
      paragraphs: s.querySelectorAll('#evidence-body > *').length,
    }));
    assert.deepEqual(section.children, ['H2', 'DIV']);
    assert.equal(section.body, 'No runs recorded.');
    assert.equal(section.paragraphs, 1);
    await page.close();
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('fixture records: the page shows the summary\'s numbers, and stores nothing', async () => {
  const text = recordFixtures();
  summary = JSON.parse(text);
  assert.equal(summary.total_runs, 6);
  assert.equal(summary.cost_comparable, true);

  // Tall enough for the whole section: on a page this long, Chromium cannot capture an
  // element taller than the viewport (the screenshot below waits forever).
  const context = await browser.newContext({ viewport: { width: 1280, height: 1800 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.route('**/runs-summary.json', (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: text }),
  );
  await load(page);

  const shown = await page.$$eval('#evidence-body table.evidence-conditions tbody tr', (rows) =>
    rows.map((r) => ({
      condition: r.dataset.condition,
      cells: [...r.cells].map((c) => c.textContent.trim()),
      values: [...r.cells].map((c) => [...c.querySelectorAll('[data-value]')].map((v) => v.dataset.value)),
    })),
  );
  assert.deepEqual(shown.map((r) => r.condition), summary.conditions.map((c) => c.condition));
  for (const [i, c] of summary.conditions.entries()) {
    const row = shown[i];
    const [lo, hi] = c.fully_correct_wilson95;
    // Exact numbers carried, rounded numbers shown.
    assert.deepEqual(row.values.slice(1, 8), [
      [String(c.runs)],
      [String(c.parse_failures)],
      [String(c.mean_fields_correct)],
      [String(c.fully_correct)],
      [String(c.fully_correct_rate)],
      [String(lo), String(hi)],
      [String(c.mean_latency_ms)],
    ]);
    assert.equal(row.cells[1], String(c.runs));
    assert.equal(row.cells[2], String(c.parse_failures));
    const round = (x, d) => (Number.isInteger(x) ? String(x) : x.toFixed(d));
    assert.equal(row.cells[3], round(c.mean_fields_correct, 2));
    assert.equal(row.cells[6], `${round(lo, 3)} to ${round(hi, 3)}`);
    assert.equal(row.cells[8], round(c.mean_tokens, 0));
  }
  // The hand-checkable facts of this fixture.
  const pdf = summary.conditions.find((c) => c.condition === 'pdf');
  assert.deepEqual([pdf.runs, pdf.parse_failures, pdf.fully_correct, pdf.mean_fields_correct], [3, 1, 1, 12.5]);

  // Per field: the wrong estimate shows as 1 of 2 parsed PDF answers.
  const estimateRow = await page.$$eval('#evidence-body table.evidence-fields tbody tr', (rows) =>
    rows.map((r) => [...r.cells].map((c) => c.textContent.trim())).find((cells) => cells[0] === 'overall.estimate'),
  );
  assert.deepEqual(estimateRow, ['overall.estimate', '1/2', '3/3']);

  // The paired comparison.
  const paired = await page.$$eval('#evidence-body .evidence-paired dd', (dds) =>
    Object.fromEntries(dds.map((d) => [d.dataset.key, d.textContent.trim()])),
  );
  assert.equal(paired.complete_pairs, String(summary.paired.complete_pairs));
  assert.match(paired.discordant, new RegExp(`only WebMCP fully correct: ${summary.paired.only_webmcp_fully_correct}; only PDF fully correct: ${summary.paired.only_pdf_fully_correct}`));
  assert.match(paired.order, /\(alternated\)/);
  const differences = await page.$$eval('#evidence-body table.evidence-pairs tbody tr', (rows) =>
    rows.map((r) => [r.cells[0].textContent.trim(), Number(r.cells[1].textContent)]),
  );
  assert.deepEqual(differences, summary.paired.differences);

  // The notes, verbatim from Rust, and the link to the limits.
  const notes = await page.$$eval('#evidence-body .evidence-notes li', (lis) => lis.map((l) => l.textContent));
  assert.deepEqual(notes, summary.notes);
  assert.equal(await page.$$eval('#evidence-body a[href="#limits"]', (n) => n.length), 1);
  assert.doesNotMatch(await page.textContent('#evidence-body'), /No runs recorded/);

  assert.deepEqual(await storageIsEmpty(page, context), {
    localStorage: 0,
    sessionStorage: 0,
    indexedDB: 0,
    cacheStorage: 0,
    cookie: '',
    cookies: 0,
  });
  await page.locator('#living-evidence').screenshot({ path: join(ARTIFACTS, 'living-evidence-fixture.png') });
  assert.deepEqual(errors, []);
  await context.close();
});
