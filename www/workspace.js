// "Your data": a CSV pasted or picked from a file, read in this browser and
// never uploaded or stored; the measure chosen; the columns matched by name
// (Rust matches them) and mappable by hand; the computed records shown with
// each bad row's error; downloads of the records as CSV and JSON. Every tool
// form can then run on these records instead of the frozen dataset.
//
// Rust decides everything: `workspaceView(request)` (exemplar::workspace)
// parses the CSV, matches the columns, computes each row and says why a row
// gives no record. This module only gathers what a person chose and shows
// what comes back. It keeps the text and the records in memory only.

import { el, fill, table, scroller, downloadLink } from './dom.js';

const RECOMPUTE_DELAY_MS = 250;

/**
 * Builds the workspace into `target`. `workspaceView(requestJson)` is the
 * engine's (returns the view's JSON text). Returns `{ records() }`: the
 * records the tools take (`records` argument), or null when there are none.
 */
export function createWorkspace({ target, workspaceView }) {
  const state = { csv: '', measure: '', mapping: {}, add: '', to: '' };
  let view = null;
  let timer = null;

  const csvInput = el('textarea', {
    id: 'your-data-csv',
    rows: '6',
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-describedby': 'your-data-csv-hint',
  });
  const fileInput = el('input', { id: 'your-data-file', type: 'file', accept: '.csv,.tsv,.txt,text/csv,text/plain' });
  const measureSelect = el('select', { id: 'your-data-measure' }, el('option', { value: '', text: '(choose a measure)' }));
  const addInput = el('input', { id: 'your-data-add', type: 'text', inputmode: 'decimal', autocomplete: 'off', 'aria-describedby': 'your-data-add-hint' });
  const toSelect = el('select', { id: 'your-data-to' });
  const mappingBox = el('div', { class: 'mapping' });
  const status = el('p', { id: 'your-data-status', class: 'status', role: 'status', text: 'No data yet.' });
  const downloads = el('p', { class: 'actions', id: 'your-data-downloads' });
  const rowsBox = el('div', { id: 'your-data-table' });

  fill(
    target,
    el(
      'div',
      { class: 'field' },
      el('label', { for: 'your-data-csv', text: 'Paste a CSV (a header row naming the columns; comma, semicolon or tab)' }),
      csvInput,
      el('p', { class: 'hint', id: 'your-data-csv-hint', text: 'One row per study. Name the columns as metafor\u2019s escalc does, or map them by hand below; an optional id column names the records.' }),
    ),
    el('div', { class: 'field' }, el('label', { for: 'your-data-file', text: 'or pick a file (read in this browser, never uploaded)' }), fileInput),
    el('div', { class: 'field' }, el('label', { for: 'your-data-measure', text: 'Effect-size measure' }), measureSelect),
    el(
      'details',
      { class: 'options' },
      el('summary', { text: 'Continuity correction (2\u00d72 tables and proportions)' }),
      el('div', { class: 'field' }, el('label', { for: 'your-data-add', text: 'add' }), addInput, el('p', { class: 'hint', id: 'your-data-add-hint' })),
      el('div', { class: 'field' }, el('label', { for: 'your-data-to', text: 'to' }), toSelect),
    ),
    mappingBox,
    status,
    downloads,
    rowsBox,
  );

  function request() {
    const add = state.add.trim() === '' ? undefined : Number(state.add.trim());
    return JSON.stringify({
      csv: state.csv,
      measure: state.measure || undefined,
      mapping: state.mapping,
      add: Number.isFinite(add) ? add : undefined,
      to: state.to || undefined,
    });
  }

  function compute() {
    clearTimeout(timer);
    timer = null;
    if (state.csv.trim() === '') {
      view = null;
      render();
      return;
    }
    view = JSON.parse(workspaceView(request()));
    render();
  }

  function later() {
    clearTimeout(timer);
    timer = setTimeout(compute, RECOMPUTE_DELAY_MS);
  }

  function renderMeasures(measures) {
    if (measureSelect.options.length > 1) return;
    for (const m of measures) measureSelect.append(el('option', { value: m.name, text: `${m.name}: ${m.title} (${m.columns.join(', ')})` }));
  }

  function renderMapping() {
    if (!view || !view.measure || view.error?.startsWith('The CSV')) {
      fill(mappingBox);
      return;
    }
    fill(
      mappingBox,
      el(
        'fieldset',
        {},
        el('legend', { text: 'Columns (matched by name; change any by hand)' }),
        view.mapping.map((m) => {
          const id = `your-data-map-${m.column}`;
          const select = el(
            'select',
            { id, 'data-column': m.column },
            el('option', { value: '', text: m.optional ? '(none)' : '(none: required)' }),
            view.columns.map((c) => el('option', { value: c, text: c })),
          );
          select.value = m.source ?? '';
          select.addEventListener('change', () => {
            state.mapping[m.column] = select.value;
            compute();
          });
          return el(
            'div',
            { class: 'map' },
            el('label', { for: id }, el('code', { text: m.column }), ` ${m.description}`, m.by_name ? ' (matched by name)' : ''),
            select,
          );
        }),
      ),
    );
  }

  function renderRows() {
    for (const old of downloads.querySelectorAll('a[download]')) URL.revokeObjectURL(old.href);
    fill(downloads);
    if (!view || view.rows.length === 0) {
      fill(rowsBox);
      return;
    }
    const computed = view.measure !== null && !view.error;
    const columns = ['line', ...view.columns, ...(computed ? ['id', 'yi', 'vi', 'error'] : [])];
    const numeric = new Set(computed ? [0, columns.length - 3, columns.length - 2] : [0]);
    const rows = view.rows.map((r) => [
      String(r.line),
      ...r.fields,
      ...(computed ? [r.id ?? '', r.yi === null ? '' : String(r.yi), r.vi === null ? '' : String(r.vi), r.error ?? ''] : []),
    ]);
    const tableNode = table(columns, rows, {
      caption: computed ? `${view.k} records from ${view.rows.length} rows` : `${view.rows.length} rows`,
      className: 'data your-data',
      numeric,
    });
    view.rows.forEach((r, i) => {
      if (!r.error) return;
      const tr = tableNode.tBodies[0].rows[i];
      tr.classList.add('bad');
      const at = r.error_column ? view.columns.indexOf(r.error_column) : -1;
      if (at >= 0) tr.cells[at + 1].classList.add('fault');
    });
    fill(rowsBox, scroller(tableNode, 'Your data and its records'));
    if (view.k > 0) {
      fill(
        downloads,
        downloadLink('Download the records (CSV)', 'records.csv', view.records_csv, 'text/csv'),
        ' ',
        downloadLink('Download the records (JSON)', 'records.json', JSON.stringify(view.records, null, 2), 'application/json'),
      );
    }
  }

  function render() {
    if (view) renderMeasures(view.measures);
    renderMapping();
    renderRows();
    if (!view) {
      status.className = 'status';
      status.textContent = 'No data yet.';
    } else if (view.error) {
      status.className = 'status alarm';
      status.textContent = view.error;
    } else if (!view.measure) {
      status.className = 'status';
      status.textContent = `Read ${view.rows.length} rows and ${view.columns.length} columns. Choose a measure.`;
    } else {
      status.className = `status ${view.bad_rows ? 'alarm' : 'ok'}`;
      const rows = (n) => `${n} row${n === 1 ? '' : 's'}`;
      status.textContent =
        `${view.k} record${view.k === 1 ? '' : 's'} (${view.measure}) from ${rows(view.rows.length)}` +
        (view.bad_rows ? `; ${rows(view.bad_rows)} ${view.bad_rows === 1 ? 'gives' : 'give'} no record (see the errors below).` : '.') +
        (view.k ? ' Every tool form below can run on them: choose \u201cyour data\u201d.' : '');
    }
  }

  // The measures and correction options, before any data.
  const empty = JSON.parse(workspaceView(JSON.stringify({ csv: '' })));
  renderMeasures(empty.measures);
  const { correction } = empty;
  target.querySelector('#your-data-add-hint').textContent = `Added to each cell of a corrected table (default ${correction.add}).`;
  for (const to of correction.to_choices) {
    toSelect.append(el('option', { value: to === correction.to ? '' : to, text: to === correction.to ? `${to} (default)` : to }));
  }

  csvInput.addEventListener('input', () => {
    state.csv = csvInput.value;
    later();
  });
  fileInput.addEventListener('change', async () => {
    const file = fileInput.files?.[0];
    if (!file) return;
    try {
      state.csv = await file.text();
      csvInput.value = state.csv;
      compute();
    } catch (err) {
      status.className = 'status alarm';
      status.textContent = `The file could not be read: ${err.message}`;
    }
  });
  measureSelect.addEventListener('change', () => {
    state.measure = measureSelect.value;
    state.mapping = {};
    compute();
  });
  addInput.addEventListener('input', () => {
    state.add = addInput.value;
    later();
  });
  toSelect.addEventListener('change', () => {
    state.to = toSelect.value;
    compute();
  });

  return {
    /** The records the tools take, or null when there are none. */
    records: () => {
      if (timer) compute();
      return view && view.k > 0 ? view.tool_records : null;
    },
  };
}
