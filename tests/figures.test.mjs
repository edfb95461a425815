// Figures a reviewer would put in a paper (issue 32): every plot tool run from its
// form at desktop (1366 px) and phone (390 px) widths, saved as screenshots; at
// phone width no drawn text is smaller than 11 px and no two tick labels of an
// axis overlap; a risk-ratio forest plot of dat.bcg reads its axis in round
// ratios.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ARTIFACTS, exemplar, launch, openPage, plotOf } from './helpers.mjs';

/** Each plot tool and what its form needs typed (field name -> text). */
const PLOTS = [
  ['forest_plot', {}],
  ['funnel_plot', {}],
  ['trim_and_fill_plot', {}],
  ['cumulative_forest_plot', {}],
  ['bubble_plot', { mod: 'weeks' }],
  ['diagnostic_plot', {}],
];

/** dat.bcg's log risk ratios, as escalc computes them, with the study's author as its label. */
function bcgRecords() {
  const csv = [
    'id,label,ai,bi,ci,di',
    't01,Aronson 1948,4,119,11,128',
    't02,Ferguson 1949,6,300,29,274',
    't03,Rosenthal 1960,3,228,11,209',
    't04,Hart 1977,62,13536,248,12619',
    't05,Frimodt-Moller 1973,33,5036,47,5761',
    't06,Stein 1953,180,1361,372,1079',
    't07,Vandiviere 1973,8,2537,10,619',
    't08,TPT Madras 1980,505,87886,499,87892',
    't09,Coetzee 1968,29,7470,45,7232',
    't10,Rosenthal 1961,17,1699,65,1600',
    't11,Comstock 1974,186,50448,141,27197',
    't12,Comstock 1969,5,2493,3,2338',
    't13,Comstock 1976,27,16886,29,17825',
  ].join('\n');
  return JSON.parse(exemplar('call', 'compute_effect_sizes', JSON.stringify({ measure: 'RR', data: csvRows(csv) }))).records;
}

function csvRows(csv) {
  const [head, ...lines] = csv.split('\n');
  const names = head.split(',');
  return lines.map((line) => {
    const cells = line.split(',');
    return Object.fromEntries(names.map((n, i) => [n, /^\d+$/.test(cells[i]) ? Number(cells[i]) : cells[i]]));
  });
}

/** The smallest text of a drawn SVG in screen pixels, and the tick labels of an axis that overlap. */
function measure(svg) {
  return svg.evaluate((node) => {
    let smallest = Infinity;
    let smallestText = '';
    for (const t of node.querySelectorAll('text')) {
      if (!t.textContent.trim()) continue;
      const m = t.getScreenCTM();
      const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
      if (px < smallest) {
        smallest = px;
        smallestText = t.textContent;
      }
    }
    const overlaps = [];
    for (const axis of node.querySelectorAll('g.axis')) {
      const labels = [...axis.querySelectorAll('text')].filter((t) => !t.classList.contains('axis-title') && t.textContent.trim());
      const boxes = labels.map((t) => [t.textContent, t.getBoundingClientRect()]);
      for (let i = 0; i < boxes.length; i += 1) {
        for (let j = i + 1; j < boxes.length; j += 1) {
          const [a, r] = boxes[i];
          const [b, s] = boxes[j];
          const w = Math.min(r.right, s.right) - Math.max(r.left, s.left);
          const h = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
          if (w > 0.5 && h > 0.5) overlaps.push(`${a} / ${b}`);
        }
      }
    }
    const box = node.closest('.plot-scroll');
    const scrolls = box ? box.scrollWidth > box.clientWidth + 1 : false;
    const right = node.getBoundingClientRect().right;
    return { smallest, smallestText, overlaps, offScreen: scrolls || right > document.documentElement.clientWidth + 1 };
  });
}

let browser;
before(async () => {
  browser = await launch({ webmcp: false });
});
after(async () => {
  await browser?.close();
});

for (const width of [1366, 390]) {
  test(`every plot at ${width} px: drawn, saved${width === 390 ? ', text at least 11 px, no tick labels overlapping' : ''}`, async () => {
    const { page, context, errors } = await openPage(browser, { viewport: { width, height: 900 } });
    const problems = [];
    for (const [tool, typed] of PLOTS) {
      await page.click(`#tool-${tool} details.tool-details > summary`);
      for (const [name, text] of Object.entries(typed)) await page.fill(`#tool-${tool} [name="${name}"]`, text);
      await page.click(`#tool-${tool} button[type="submit"]`);
      const svg = await plotOf(page, tool);
      await (await page.$(`#tool-${tool} .plot-scroll`)).screenshot({ path: join(ARTIFACTS, `${tool}-${width}.png`) });
      if (width === 390) {
        const { smallest, smallestText, overlaps, offScreen } = await measure(svg);
        if (smallest < 11 - 1e-6) problems.push(`${tool}: text ${smallestText.slice(0, 40)} is ${smallest.toFixed(1)} px`);
        if (offScreen) problems.push(`${tool}: part of the plot is off-screen or scrolled`);
        if (overlaps.length) problems.push(`${tool}: tick labels overlap: ${overlaps.join(', ')}`);
      }
    }
    await context.close();
    assert.deepEqual(problems, []);
    assert.deepEqual(errors, []);
  });
}

test('a risk-ratio forest plot of dat.bcg reads its axis in round ratios, at desktop and phone widths', async () => {
  const records = JSON.stringify(bcgRecords());
  for (const width of [1366, 390]) {
    const { page, context, errors } = await openPage(browser, { viewport: { width, height: 900 } });
    await page.click('#tool-forest_plot details.tool-details > summary');
    await page.fill('#tool-forest_plot textarea[name="records"]', records);
    await page.click('#tool-forest_plot button[type="submit"]');
    const svg = await plotOf(page, 'forest_plot');
    const ticks = await svg.evaluate((node) =>
      [...node.querySelectorAll('g.x-axis text')].filter((t) => !t.classList.contains('axis-title')).map((t) => t.textContent.trim()),
    );
    // Ratios a reader reads: 1-2-5 or doubling steps, never e^k (0.37, 2.72, 7.39).
    const round = new Set(['0.01', '0.02', '0.05', '0.1', '0.2', '0.25', '0.5', '1', '2', '4', '5', '10', '20', '50', '100']);
    assert.ok(ticks.length >= 3, ticks.join(' '));
    assert.ok(ticks.includes('1'), `the null ratio 1 is a tick: ${ticks.join(' ')}`);
    for (const t of ticks) assert.ok(round.has(t), `tick ${t} is not a round ratio (${ticks.join(' ')})`);
    // The heading says what was fitted: the measure, the model and k.
    const heading = await svg.evaluate((node) =>
      [...node.querySelectorAll('text[class*="title"]')].map((t) => t.textContent).join(' | '),
    );
    assert.match(heading, /Risk ratio/);
    assert.match(heading, /Random-effects model \(REML\), k = 13/);
    // The rows carry the studies' labels.
    assert.match(await svg.evaluate((node) => node.textContent), /Aronson 1948/);
    const { smallest, overlaps, offScreen } = await measure(svg);
    if (width === 390) assert.ok(smallest >= 11 - 1e-6, `text ${smallest.toFixed(1)} px at phone width`);
    assert.equal(offScreen, false, 'the whole plot is on screen, not scrolled');
    assert.deepEqual(overlaps, []);
    await (await page.$('#tool-forest_plot .plot-scroll')).screenshot({ path: join(ARTIFACTS, `forest-rr-bcg-${width}.png`) });
    await context.close();
    assert.deepEqual(errors, []);
  }
});
