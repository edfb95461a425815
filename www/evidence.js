// The Living Evidence section: the summary of the recorded A/B runs, which
// `cargo xtask build` checks and summarises from runs/*.json (Rust:
// exemplar::runs) into www/generated/runs-summary.json. This module lays the
// numbers out; every sentence of judgement (the notes, the empty message)
// comes from Rust verbatim.

import { el, fill, table, scroller } from './dom.js';

export const SUMMARY_URL = 'www/generated/runs-summary.json';

/**
 * How the page names a condition: its label in the engine's metadata (`conditions`,
 * `{key, label}` each), else its key.
 */
const labeller = (conditions) => (key) => conditions.find((c) => c.key === key)?.label ?? key;

/** A number shown rounded, its exact value kept in data-value for checking. */
function num(value, digits) {
  if (value === null || value === undefined) return el('span', { class: 'na', text: '–' });
  return el('span', { 'data-value': String(value), text: Number.isInteger(value) ? String(value) : value.toFixed(digits) });
}

function conditionTable(summary, fieldCount, label) {
  const cost = summary.cost_comparable;
  const columns = [
    'Condition',
    'Runs',
    'Parse failures',
    fieldCount ? `Mean fields correct (of ${fieldCount})` : 'Mean fields correct',
    'Fully correct',
    'Fully correct rate',
    'Wilson 95% interval',
    ...(cost ? ['Mean latency (ms)', 'Mean tokens'] : []),
  ];
  const rows = summary.conditions.map((c) => {
    const [lo, hi] = c.fully_correct_wilson95 ?? [null, null];
    return [
      label(c.condition),
      num(c.runs),
      num(c.parse_failures),
      num(c.mean_fields_correct, 2),
      num(c.fully_correct),
      num(c.fully_correct_rate, 3),
      lo === null ? num(null) : el('span', { class: 'wilson' }, num(lo, 3), ' to ', num(hi, 3)),
      ...(cost ? [num(c.mean_latency_ms, 0), num(c.mean_tokens, 0)] : []),
    ];
  });
  const t = table(columns, rows, {
    caption: 'Per condition (a parse failure counts as a run that is not fully correct)',
    className: 'evidence-conditions',
    numeric: new Set(columns.map((_, i) => i).filter((i) => i > 0)),
  });
  rows.forEach((_, i) => t.tBodies[0].rows[i].setAttribute('data-condition', summary.conditions[i].condition));
  return scroller(t, 'Runs per condition');
}

function fieldTable(summary, label) {
  const paths = [...new Set(summary.conditions.flatMap((c) => c.field_accuracy.map((f) => f.path)))];
  if (paths.length === 0) return el('p', { text: 'No answer parsed, so no field was scored.' });
  const rows = paths.map((path) => [
    el('code', { text: path }),
    ...summary.conditions.map((c) => {
      const f = c.field_accuracy.find((x) => x.path === path);
      return f ? `${f.correct}/${f.of}` : '–';
    }),
  ]);
  const t = table(['Field', ...summary.conditions.map((c) => `${label(c.condition)}: correct of parsed`)], rows, {
    caption: 'Per field: how many parsed answers got it right',
    className: 'evidence-fields',
    numeric: new Set(summary.conditions.map((_, i) => i + 1)),
  });
  return scroller(t, 'Per-field accuracy');
}

function pairedBlock(paired) {
  if (!paired) return el('p', { text: 'No complete replicate pair (one PDF run and one WebMCP run) is recorded yet.' });
  const diffs = paired.differences.length
    ? scroller(
        table(
          ['Pair', 'WebMCP − PDF fields correct'],
          paired.differences.map(([pair, d]) => [el('code', { text: pair }), num(d)]),
          { caption: 'Pairs where both answers parsed', className: 'evidence-pairs', numeric: new Set([1]) },
        ),
        'Paired differences',
      )
    : el('p', { text: 'In no complete pair did both answers parse, so no difference in fields correct is computed.' });
  return [
    el(
      'dl',
      { class: 'facts evidence-paired' },
      el('dt', { text: 'Complete pairs' }),
      el('dd', { 'data-key': 'complete_pairs' }, num(paired.complete_pairs)),
      el('dt', { text: 'Mean difference (WebMCP − PDF)' }),
      el('dd', { 'data-key': 'mean_difference' }, num(paired.mean_difference, 2)),
      el('dt', { text: 'Discordant pairs' }),
      el(
        'dd',
        { 'data-key': 'discordant' },
        'only WebMCP fully correct: ',
        num(paired.only_webmcp_fully_correct),
        '; only PDF fully correct: ',
        num(paired.only_pdf_fully_correct),
      ),
      el('dt', { text: 'Order' }),
      el(
        'dd',
        { 'data-key': 'order' },
        'PDF went first in ',
        num(paired.pdf_first),
        ' pairs, WebMCP in ',
        num(paired.webmcp_first),
        paired.order_alternated ? ' (alternated)' : ' (NOT alternated)',
      ),
    ),
    diffs,
  ];
}

/**
 * Renders `summary` (the Rust Summary JSON) into `target`, naming the conditions as
 * `conditions` (the page metadata's) does.
 */
export function renderEvidence(target, summary, conditions) {
  const label = labeller(conditions);
  if (summary.empty_message) {
    fill(target, el('p', { text: summary.empty_message }));
    return;
  }
  const fieldCount = Math.max(0, ...summary.conditions.map((c) => c.field_accuracy.length)) || null;
  fill(
    target,
    el('p', { text: `${summary.total_runs} recorded runs, each scored by the one scorer from its raw answer.` }),
    conditionTable(summary, fieldCount, label),
    el('h3', { text: 'Which fields each condition gets wrong' }),
    fieldTable(summary, label),
    el('h3', { text: 'Paired comparison' }),
    pairedBlock(summary.paired),
    summary.cost_comparable
      ? null
      : el('p', { class: 'note', text: 'Latency and tokens are not shown: not every run of both conditions carries them.' }),
    el('ul', { class: 'evidence-notes' }, summary.notes.map((n) => el('li', { text: n }))),
    el('p', {}, el('a', { href: '#limits', text: 'What this comparison cannot establish' })),
  );
}

/** Fetches the built summary and renders it; says plainly when it is missing. */
export async function loadEvidence(target, conditions) {
  try {
    const response = await fetch(SUMMARY_URL, { cache: 'no-store' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    renderEvidence(target, await response.json(), conditions);
  } catch (err) {
    fill(
      target,
      el('p', {
        class: 'status alarm',
        text: `The summary of recorded runs could not be loaded (${err.message}). Run cargo xtask build.`,
      }),
    );
  }
}
