// People: the page as loaded, the scoring fields, privacy, the ledger, and
// phone width.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ARTIFACTS,
  ORIGIN,
  BASE_URL,
  agentCall,
  exemplar,
  exportedLedger,
  failingFields,
  ledgerVerified,
  launch,
  load,
  openPage,
  reference,
  resultOf,
  scoreAnswer,
  scoreWithCli,
  storageIsEmpty,
} from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch({ webmcp: false });
});
after(async () => {
  await browser?.close();
});

test('the page as loaded holds none of the reference numbers', async () => {
  const { page, context, errors } = await openPage(browser);
  const ref = reference();
  const numbers = [
    ...['estimate', 'ci_lower', 'ci_upper', 'p'].flatMap((f) => [ref.overall[f], ref.exclude_s04[f]]),
    ref.bias.egger_p,
  ];
  // The input data may contain a short string by coincidence (a variance
  // 0.0841 contains "0.084"); such a string shows nothing about a result.
  const csv = readFileSync(join(process.cwd(), 'crates/exemplar/data/dat.raudenbush1985.csv'), 'utf8');
  const html = await page.content();
  const text = await page.evaluate(() => document.body.innerText);
  for (const n of numbers) {
    for (const digits of [3, 4, 5]) {
      const s = n.toFixed(digits);
      if (digits < 5 && csv.includes(s)) continue;
      assert.ok(!html.includes(s), `page HTML contains ${s} (reference ${n})`);
      assert.ok(!text.includes(s), `page text contains ${s} (reference ${n})`);
    }
  }
  // As loaded: no plot, so no pooled diamond and no Egger line.
  assert.equal(await page.$$eval('figure.plot, svg .diamond, svg .egger-line', (n) => n.length), 0);
  // The page still shows what it must: Living Evidence summarises the committed runs
  // (counts and rates, never an answer's numbers; tests/evidence.test.mjs checks them).
  const shipped = JSON.parse(exemplar('runs', 'summary'));
  if (shipped.total_runs === 0) {
    assert.equal((await page.textContent('#evidence-body')).trim(), 'No runs recorded.');
  } else {
    assert.equal(await page.$$eval('#evidence-body table.evidence-conditions', (n) => n.length), 1);
  }
  assert.match(text, /dat\.raudenbush1985/);
  assert.match(text, /18 experiments/);
  assert.equal(await page.$$eval('#data-table tbody tr', (rows) => rows.length), 19);
  assert.match(await page.textContent('#dataset-check'), /verified/);
  assert.match(await page.textContent('#prompt'), /^Using only the supplied evidence artifact/);
  // The page hashes the frozen PDF in this browser against its baseline.
  assert.match(await page.textContent('#artifact-body .status.ok'), /Verified: the served file hashes to the expected SHA-256/);
  await context.close();
  assert.deepEqual(errors, []);
});

test("the counts the page states come from the engine's metadata, not the HTML", async () => {
  // The served HTML has placeholders where the counts go.
  const html = await (await fetch(`${BASE_URL}/`)).text();
  for (const id of ['scored-fields', 'record-count', 'ledger-fields']) {
    assert.match(html, new RegExp(`id="${id}" class="pending">[^<0-9]*<`), id);
  }
  assert.doesNotMatch(html, /13 fields|Nineteen|result_sha256/);
  const { page, context, errors } = await openPage(browser);
  const meta = await page.evaluate(async () => (await import('./www/engine.js')).engine.metadata());
  const shown = async (id) => (await page.textContent(`#${id}`)).trim();
  assert.equal(await shown('scored-fields'), String(meta.scored_fields));
  assert.equal(await shown('record-count'), String(meta.record_count));
  assert.equal(await shown('ledger-fields'), `{${meta.ledger_fields.join(', ')}}`);
  // And the metadata is true: the scorer's fields, the data table's rows, an entry's keys.
  assert.equal(meta.scored_fields, scoreWithCli('{}').fields.length);
  assert.equal(await page.$$eval('#data-table tbody tr', (rows) => rows.length), meta.record_count);
  await agentCall(page, 'get_dataset', {});
  await ledgerVerified(page, 1);
  const [entry] = JSON.parse(await exportedLedger(page));
  assert.deepEqual(Object.keys(entry), meta.ledger_fields);
  await context.close();
  assert.deepEqual(errors, []);
});

test('a tampered PDF served in place of the frozen one shows a loud mismatch', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.route('**/benchmark-baseline.pdf', async (route) => {
    const response = await route.fetch();
    const body = Buffer.from(await response.body());
    // One changed byte inside the document, as an edit would leave.
    body[Math.floor(body.length / 2)] ^= 0x01;
    await route.fulfill({ response, body });
  });
  await load(page);
  const status = await page.waitForSelector('#artifact-body .status.alarm[role="alert"]');
  assert.match(await status.textContent(), /^MISMATCH: the served file hashes to [0-9a-f]{64}\. It is not the frozen artifact\.$/);
  assert.equal(await page.$$eval('#artifact-body .status.ok', (n) => n.length), 0);
  await context.close();
});

test('invalid JSON is a parse failure; a wrong number fails only its field', async () => {
  const { page, context } = await openPage(browser);
  const invalid = await scoreAnswer(page, 'pdf', '{"overall": {"k": 19,');
  assert.match(invalid, /^Parse failure: /);
  assert.doesNotMatch(await page.textContent('#result-pdf'), /\/13/);

  const prose = await scoreAnswer(page, 'pdf', 'Here is my answer: {"overall": {}}');
  assert.match(prose, /^Parse failure: /);

  const answer = reference();
  answer.overall.estimate += 0.01;
  assert.equal(await scoreAnswer(page, 'pdf', JSON.stringify(answer)), '12/13');
  assert.deepEqual(await failingFields(page, 'pdf'), ['overall.estimate']);

  answer.overall.estimate -= 0.01;
  answer.overall.k = '19';
  assert.equal(await scoreAnswer(page, 'webmcp', JSON.stringify(answer)), '12/13');
  assert.deepEqual(await failingFields(page, 'webmcp'), ['overall.k']);

  // Pasted text is shown as text, never parsed as HTML.
  await scoreAnswer(page, 'pdf', '<img src=x onerror="window.__pwned=1">');
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.$$eval('#result-pdf img', (n) => n.length), 0);
  await context.close();
});

test('nothing leaves the origin or is stored; a reload forgets the scores; the ledger holds no score', async () => {
  const { page, context, requests, errors } = await openPage(browser);
  // Keyboard only: type the answer, Tab to the button, press Enter.
  await page.focus('#answer-webmcp');
  await page.keyboard.insertText(JSON.stringify(reference()));
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'score-webmcp');
  await page.keyboard.press('Enter');
  assert.equal((await page.textContent('#result-webmcp .verdict')).trim(), '13/13');
  await scoreAnswer(page, 'pdf', 'not json');
  assert.equal(await page.$$eval('#visit-scores tbody tr', (rows) => rows.length), 2);

  // Scores never enter the ledger.
  assert.match(await page.textContent('#ledger-status'), /No tool runs yet/);
  assert.equal(await page.isDisabled('#ledger-export'), true);

  assert.deepEqual(await storageIsEmpty(page, context), {
    localStorage: 0,
    sessionStorage: 0,
    indexedDB: 0,
    cacheStorage: 0,
    cookie: '',
    cookies: 0,
  });

  await load(page, 'reload');
  assert.equal(await page.$$eval('#visit-scores tbody tr', (rows) => rows.length), 0);
  assert.match(await page.textContent('#visit-scores'), /No answers scored/);
  assert.equal(await page.inputValue('#answer-webmcp'), '');

  const foreign = requests.filter((u) => !u.startsWith(`${ORIGIN}/`) && !u.startsWith('blob:'));
  assert.deepEqual(foreign, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the CSP header is served, .wasm is application/wasm, and only the page is exposed', async () => {
  const { page, context } = await openPage(browser);
  const get = (path) => page.evaluate(async (p) => {
    const r = await fetch(p);
    return { status: r.status, type: r.headers.get('content-type'), csp: r.headers.get('content-security-policy') };
  }, path);
  const index = await get('/');
  assert.equal(index.status, 200);
  assert.match(index.csp, /default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'none'/);
  for (const module of ['core', 'full']) assert.equal((await get(`/www/pkg/${module}/exemplar_wasm_bg.wasm`)).type, 'application/wasm');
  for (const path of ['/Cargo.toml', '/crates/exemplar/src/lib.rs', '/.git/HEAD', '/www/', '/target/']) {
    assert.equal((await get(path)).status, 404, path);
  }
  await context.close();
});

test('phone width: no horizontal overflow, with results shown', async () => {
  const { page, context, errors } = await openPage(browser, { viewport: { width: 390, height: 844 } });
  await page.click('#tool-fit_random_effects details.tool-details > summary');
  await page.fill('#tool-fit_random_effects input[name="level"]', '0.9');
  await page.click('#tool-fit_random_effects button[type="submit"]');
  await resultOf(page, 'fit_random_effects');
  // The forest plot drawn beside the result scrolls inside itself, not the page.
  await page.waitForSelector('#tool-fit_random_effects figure.plot svg');
  await scoreAnswer(page, 'pdf', JSON.stringify(reference()));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
  await page.screenshot({ path: join(ARTIFACTS, 'page-phone.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await context.close();
});

test("the Methods section carries the benchmark's methods as the PDF does, and the engine's folded below", async () => {
  const { page, context } = await openPage(browser);
  await page.waitForSelector('#methods-body details.engine-methods');
  const shown = await page.$eval('#methods-body', (body) => ({
    open: [...body.children].filter((n) => n.tagName === 'H3').map((h) => h.textContent.trim()),
    folded: body.querySelector('details.engine-methods').open,
    engine: [...body.querySelectorAll('details.engine-methods h3')].map((h) => h.textContent.trim()),
  }));
  // The sections of docs/BENCHMARK_METHODS.md, in order, outside the fold: the text the
  // frozen PDF carries (crates/exemplar-pdf/tests/pdf.rs checks the PDF side).
  const benchmark = readFileSync(join(process.cwd(), 'docs/BENCHMARK_METHODS.md'), 'utf8');
  const headings = benchmark.split('\n').filter((l) => l.startsWith('## ')).map((l) => l.slice(3).replace(/`/g, ''));
  assert.deepEqual(shown.open, headings);
  // The engine's methods (every tool) are there, folded.
  assert.equal(shown.folded, false);
  assert.ok(shown.engine.includes('Dependent effect sizes: the three-level model and cluster-robust tests'), shown.engine.join(' | '));
  await context.close();
});
