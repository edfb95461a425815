// The two scoring fields of the A/B protocol and this visit's scores.
// Scores live in this module's memory only: never written to any storage,
// never sent, never added to the audit ledger; a reload forgets them.

import { el, fill, table, scroller } from './dom.js';

const visit = [];

function show(value) {
  if (value === undefined) return '(missing)';
  return JSON.stringify(value);
}

function tolerance(value) {
  return value === null || value === undefined || value === 0 ? 'exact' : String(value);
}

function renderReport(target, report) {
  if (!report.parsed) {
    fill(target, el('p', { class: 'verdict parse-failure', text: `Parse failure: ${report.parse_error}` }));
    return `Parse failure`;
  }
  const summary = `${report.passed}/${report.total}`;
  const rows = report.fields.map((f) => [
    el('code', { text: f.path }),
    show(f.expected),
    show(f.got),
    tolerance(f.tolerance),
    el('span', { class: f.pass ? 'pass' : 'fail', text: f.pass ? 'pass' : 'FAIL' }),
    f.reason ?? '',
  ]);
  fill(
    target,
    el('p', { class: report.passed === report.total ? 'verdict all-pass' : 'verdict', text: summary }),
    scroller(
      table(['Field', 'Expected', 'Got', 'Tolerance', 'Pass', 'Reason'], rows, {
        caption: 'Field by field',
        className: 'report',
      }),
      'Score report, field by field',
    ),
  );
  return summary;
}

function renderVisit(target) {
  if (visit.length === 0) {
    fill(target, el('p', { text: 'No answers scored in this visit yet.' }));
    return;
  }
  fill(
    target,
    scroller(
      table(
        ['#', 'Condition', 'Scored at', 'Result'],
        visit.map((v, i) => [String(i + 1), v.condition, v.time, v.result]),
        { caption: 'Scores of this visit (memory only)', className: 'visit' },
      ),
      'Scores of this visit',
    ),
  );
}

/**
 * Wires the scoring panels. `score(raw)` is the wasm scorer, returning its
 * JSON report as a string.
 */
export function setUpScoring({ score, panels, visitTarget }) {
  renderVisit(visitTarget);
  for (const { condition, textarea, button, result } of panels) {
    button.addEventListener('click', () => {
      let report;
      try {
        report = JSON.parse(score(textarea.value));
      } catch (err) {
        fill(result, el('p', { class: 'verdict parse-failure', text: `The scorer failed: ${err.message}` }));
        return;
      }
      const summary = renderReport(result, report);
      visit.push({ condition, time: new Date().toLocaleTimeString(), result: summary });
      renderVisit(visitTarget);
      result.focus();
    });
  }
}
