// "Your data": a CSV pasted or picked from a file, read in this browser and
// never uploaded or stored; the measure chosen; the columns matched by name
// (Rust matches them) and mappable by hand; the computed records shown with
// each bad row's error; downloads of the records as CSV and JSON. Every tool
// form can then run on these records instead of the frozen dataset (a tool of
// raw data on the CSV's rows as mapped), with the column chosen as the study's
// passed to the tools that name a study or cluster column.
//
// Rust decides everything: the view (exemplar::your_data) parses the CSV,
// matches the columns, computes each row and says why a row gives no record.
// It is computed and held in the engine's worker (engine.js `yourData`), so
// that 20,000 rows never hold the page's thread: this module gathers what a
// person chose and shows what comes back, the rows a page at a time. It keeps
// the text in memory only.

import { el, fill, table, tableRow, scroller, downloadNow, appendInSlices, yieldToPage, rowsPerSlice } from './dom.js';

const RECOMPUTE_DELAY_MS = 250;
/** The rows shown at once: a page of the table is laid out within a few ms, whatever the CSV's length. */
export const ROWS_PER_PAGE = 50;
/**
 * A CSV longer than this (pasted or picked) is kept in memory, not put in the
 * text area: Chromium takes about 0.35 ms per kB to insert, lay out and paint
 * text there (a 20,000-row CSV of 1 MB: over half a second, in one task).
 */
export const SHOWN_CSV_CHARS = 100_000;
/** The most studies, or values of a column, the workspace offers to tick (more are typed). */
export const MAX_CHOICES = 200;

/**
 * Builds Your data into `target`. `engine` is engine.js's `yourData`
 * (`view`, `toolInput`, `download`: each in the worker). Resolves to
 * `{ input(name, args, takes) }`: a run's arguments on Your data (see below).
 */
export async function createYourData({ target, engine }) {
  const state = { csv: '', measure: '', mapping: {}, add: '', to: '', vtype: '', drop00: false };
  // The view shown (its summary and a page of rows) and the request it answers.
  let view = null;
  let shownRequest = null;
  let page = { from: 0, errorsOnly: false };
  let timer = null;
  // The latest computation (a view, or a page of rows): newer ones supersede older ones.
  let generation = 0;
  let computing = Promise.resolve();

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
  const drop00Box = el('input', { id: 'your-data-drop00', type: 'checkbox' });
  const drop00Field = el('div', { class: 'field' }, el('label', { for: 'your-data-drop00' }, drop00Box, ' drop00: leave out tables with no events, or only events, in both groups'));
  const vtypeSelect = el('select', { id: 'your-data-vtype' });
  const vtypeField = el('div', { class: 'field' }, el('label', { for: 'your-data-vtype', text: 'vtype (the sampling variance\u2019s estimate)' }), vtypeSelect);
  const mappingBox = el('div', { class: 'mapping' });
  const status = el('p', { id: 'your-data-status', class: 'status', role: 'status', text: 'No data yet.' });
  const downloads = el('p', { class: 'actions', id: 'your-data-downloads' });
  // Says that a long CSV is held rather than shown, with a button to drop it.
  const held = el('p', { class: 'hint', id: 'your-data-held', role: 'status', hidden: '' });
  const rowsBox = el('div', { id: 'your-data-table' });
  // Where the workspace (workspace.js) goes: between the records' downloads and their rows.
  const workspaceBox = el('section', { id: 'your-data-workspace', class: 'workspace', 'aria-labelledby': 'workspace-title' });
  // Told when a new view is shown (the workspace's pickers follow the data).
  let onChange = () => {};
  // What the workspace offers to choose from, by view and column (see `facts`).
  let factsOf = { request: null, byColumn: new Map() };

  fill(
    target,
    el(
      'div',
      { class: 'field' },
      el('label', { for: 'your-data-csv', text: 'Paste a CSV (a header row naming the columns; comma, semicolon or tab)' }),
      csvInput,
      held,
      el('p', { class: 'hint', id: 'your-data-csv-hint', text: 'One row per study. Name the columns as metafor\u2019s escalc does, or map them by hand below; an optional id column names the records.' }),
    ),
    el('div', { class: 'field' }, el('label', { for: 'your-data-file', text: 'or pick a file (read in this browser, never uploaded)' }), fileInput),
    el('div', { class: 'field' }, el('label', { for: 'your-data-measure', text: 'Effect-size measure' }), measureSelect),
    el(
      'details',
      { class: 'options' },
      el('summary', { text: 'escalc\u2019s options: continuity correction, drop00, vtype' }),
      el('div', { class: 'field' }, el('label', { for: 'your-data-add', text: 'add' }), addInput, el('p', { class: 'hint', id: 'your-data-add-hint' })),
      el('div', { class: 'field' }, el('label', { for: 'your-data-to', text: 'to' }), toSelect),
      drop00Field,
      vtypeField,
    ),
    mappingBox,
    status,
    downloads,
    workspaceBox,
    rowsBox,
  );

  /** What the person chose, as typed: the request of the view (read by the engine, written as JSON in the worker, not on this thread). */
  function request() {
    return {
      csv: state.csv,
      measure: state.measure || undefined,
      mapping: { ...state.mapping },
      add: state.add,
      to: state.to || undefined,
      vtype: state.vtype || undefined,
      drop00: state.drop00 || undefined,
    };
  }

  /** Asks the worker for `request`'s view with the rows of `at`, and shows it unless a newer one was asked for. */
  function show(request, at) {
    const mine = ++generation;
    computing = (async () => {
      try {
        const next = await engine.view(request, { ...at, count: ROWS_PER_PAGE });
        if (mine !== generation) return;
        // A page's buttons are made again: the one that had the focus keeps it.
        const focused = rowsBox.contains(document.activeElement) ? document.activeElement.id : '';
        // Another page of the view shown redraws its rows only.
        const sameView = request === shownRequest;
        [view, shownRequest, page] = [next, request, at];
        const current = () => mine === generation;
        // The rows are drawn a slice at a time; the status and the range of rows are said
        // once they all are.
        if (sameView) await renderRows(current);
        else await render(current);
        if (!current()) return;
        if (focused) document.getElementById(focused)?.focus();
      } catch (err) {
        if (mine !== generation) return;
        status.className = 'status alarm';
        status.textContent = `Your data could not be computed: ${err.message}`;
      }
    })();
    return computing;
  }

  function compute() {
    clearTimeout(timer);
    timer = null;
    if (state.csv.trim() === '') {
      ++generation;
      [view, shownRequest] = [null, null];
      render();
      return;
    }
    status.className = 'status pending';
    status.textContent = 'Computing the records in the engine\u2026';
    show(request(), { from: 0, errorsOnly: false });
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
    if (!view || !view.measure || view.error_kind === 'csv') {
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
            view.columns.map((c, i) => el('option', { value: c, text: view.column_labels[i] })),
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

  /** A button that downloads the records, written in the worker when it is pressed. */
  function downloadButton(label, filename, format, type) {
    const button = el('button', { type: 'button', 'data-download': filename, text: label });
    const request = shownRequest;
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        downloadNow(filename, await engine.download(request, format), type);
      } catch (err) {
        status.className = 'status alarm';
        status.textContent = `The records could not be written: ${err.message}`;
      } finally {
        button.disabled = false;
      }
    });
    return button;
  }

  /**
   * Previous and next page, where the rows are (`range`, the element that says it, filled
   * by the caller once the rows are drawn), and (with rows that give no record) a filter to
   * them.
   */
  function pager(computed, range) {
    const count = view.rows.length;
    const go = (at) => show(shownRequest, at);
    const previous = el('button', { type: 'button', id: 'your-data-previous', text: `Previous ${ROWS_PER_PAGE}` });
    previous.disabled = view.from === 0;
    previous.addEventListener('click', () => go({ ...page, from: Math.max(0, view.from - ROWS_PER_PAGE) }));
    const next = el('button', { type: 'button', id: 'your-data-next', text: `Next ${ROWS_PER_PAGE}` });
    next.disabled = view.from + count >= view.selected;
    next.addEventListener('click', () => go({ ...page, from: view.from + ROWS_PER_PAGE }));
    let filter = null;
    if (computed && view.bad_rows > 0) {
      const box = el('input', { type: 'checkbox', id: 'your-data-errors-only' });
      box.checked = page.errorsOnly;
      box.addEventListener('change', () => go({ from: 0, errorsOnly: box.checked }));
      filter = el('label', {}, box, ` only the ${view.bad_rows} ${view.bad_rows === 1 ? 'row' : 'rows'} that give no record`);
    }
    return el('p', { class: 'actions pager' }, previous, range, next, filter);
  }

  /** What the pager says of the rows shown. */
  function rangeText() {
    const count = view.rows.length;
    const all = page.errorsOnly ? 'rows that give no record' : 'rows';
    return count ? `Rows ${view.from + 1}\u2013${view.from + count} of ${view.selected} ${all}` : `No ${all}`;
  }

  /**
   * The rows of the view shown, its pager and downloads: the rows of a table's first
   * cells (dom.js FIRST_CELLS) at once, the rest a slice at a time (dom.js `appendInSlices`: a page
   * of 50 rows of 200 columns is 10,000 cells), unless `current()` turns false meanwhile (a
   * newer view). The pager says which rows are shown once they all are. Resolves to whether
   * they all were.
   */
  async function renderRows(current = () => true) {
    fill(downloads);
    rowsBox.removeAttribute('aria-busy');
    if (!view || view.row_count === 0) {
      fill(rowsBox);
      return true;
    }
    const computed = view.measure !== null && !view.error;
    // Column names and cells longer than `cell_chars` come cut from the engine: laying out a
    // cell of megabytes would hold the page for seconds.
    // A record's id is its study column's value when one is mapped (shown once, there);
    // otherwise the id the engine gives it (row1, row2, ...) is a column of its own.
    const showId = computed && !view.study;
    const columns = ['line', ...view.column_labels, ...(computed ? [...(showId ? ['id'] : []), 'yi', 'vi', 'error'] : [])];
    const numeric = new Set(computed ? [0, columns.length - 3, columns.length - 2] : [0]);
    const cellsOf = (r) => [
      String(r.line),
      ...r.fields,
      ...(computed
        ? [...(showId ? [r.id ?? ''] : []), r.yi === null ? '' : String(r.yi), r.vi === null ? '' : String(r.vi), r.error ?? '']
        : []),
    ];
    // A row that gives no record is marked, and the cell at fault in it.
    const rowNode = (r) => {
      const tr = tableRow(cellsOf(r), numeric);
      if (r.error) {
        tr.classList.add('bad');
        const at = r.error_column ? view.columns.indexOf(r.error_column) : -1;
        if (at >= 0) tr.cells[at + 1].classList.add('fault');
      }
      return tr;
    };
    const { first, most } = rowsPerSlice(columns.length);
    const tableNode = table(columns, [], {
      caption: computed ? `${view.k} records from ${view.row_count} rows` : `${view.row_count} rows`,
      className: 'data your-data',
      numeric,
    });
    tableNode.tBodies[0].append(...view.rows.slice(0, first).map(rowNode));
    // Only a page of the rows is in the table: thousands laid out at once would hold the page.
    const paged = view.row_count > ROWS_PER_PAGE || page.errorsOnly;
    const range = el('span', { id: 'your-data-range', role: 'status' });
    const cut = view.shortened_cells;
    const shortened = cut
      ? el('p', {
          class: 'hint',
          id: 'your-data-shortened',
          text: `${cut} ${cut === 1 ? 'cell or column name is' : 'cells or column names are'} longer than ${view.cell_chars} characters and shown cut (\u2026); the records, their downloads and the tools have them whole.`,
        })
      : null;
    fill(rowsBox, shortened, paged ? pager(computed, range) : null, scroller(tableNode, 'Your data and its records'));
    if (view.k > 0) {
      fill(
        downloads,
        downloadButton('Download the records (CSV)', 'records.csv', 'csv', 'text/csv'),
        ' ',
        downloadButton('Download the records (JSON)', 'records.json', 'json', 'application/json'),
      );
    }
    if (view.rows.length > first) {
      rowsBox.setAttribute('aria-busy', 'true');
      await yieldToPage();
      if (!current()) return false;
      if (!(await appendInSlices(tableNode.tBodies[0], view.rows.slice(first), rowNode, { first: 1, most, current }))) return false;
      rowsBox.removeAttribute('aria-busy');
    }
    range.textContent = rangeText();
    return true;
  }

  // The vtypes offered now (their names joined), to rebuild the choice only when they change.
  let shownVtypes = null;
  /** escalc's options for the measure chosen (the engine's `correction`): add's default, and drop00 and vtype where the measure reads them. */
  function renderOptions(correction) {
    target.querySelector('#your-data-add-hint').textContent = `Added to each cell of a corrected table (default ${correction.add}${state.measure ? ` for ${state.measure}` : ''}).`;
    drop00Field.hidden = !correction.drop00;
    vtypeField.hidden = correction.vtypes.length === 0;
    const key = correction.vtypes.join(',');
    if (key === shownVtypes) return;
    shownVtypes = key;
    if (!correction.vtypes.includes(state.vtype)) state.vtype = '';
    fill(vtypeSelect, ...correction.vtypes.map((v, i) => el('option', { value: i === 0 ? '' : v, text: i === 0 ? `${v} (default)` : v })));
    vtypeSelect.value = state.vtype;
  }

  /** The view shown: its choices, its rows (a slice at a time), then its status. */
  async function render(current = () => true) {
    if (view) renderMeasures(view.measures);
    if (view) renderOptions(view.correction);
    renderMapping();
    if (!(await renderRows(current))) return;
    if (!view) {
      status.className = 'status';
      status.textContent = 'No data yet.';
    } else if (view.error) {
      status.className = 'status alarm';
      status.textContent = view.error;
    } else if (!view.measure) {
      status.className = 'status';
      status.textContent = `Read ${view.row_count} rows and ${view.columns.length} columns. Choose a measure.`;
    } else {
      status.className = `status ${view.bad_rows ? 'alarm' : 'ok'}`;
      const rows = (n) => `${n} row${n === 1 ? '' : 's'}`;
      status.textContent =
        `${view.k} record${view.k === 1 ? '' : 's'} (${view.measure}) from ${rows(view.row_count)}` +
        (view.bad_rows ? `; ${rows(view.bad_rows)} ${view.bad_rows === 1 ? 'gives' : 'give'} no record (see the errors below).` : '.') +
        (view.k ? ' Every tool form below can run on them: choose \u201cyour data\u201d.' : '') +
        (view.notes?.length ? ` Note: ${view.notes.join(' ')}` : '');
    }
    onChange();
  }

  // The measures and correction options, before any data.
  const empty = await engine.view({ csv: '' }, { count: 0 });
  renderMeasures(empty.measures);
  const { correction } = empty;
  renderOptions(correction);
  for (const to of correction.to_choices) {
    toSelect.append(el('option', { value: to === correction.to ? '' : to, text: to === correction.to ? `${to} (default)` : to }));
  }

  /** A CSV pasted or picked: shown in the text area, or, when long, held in memory only. */
  function take(text) {
    state.csv = text;
    if (text.length <= SHOWN_CSV_CHARS) {
      csvInput.value = text;
      held.hidden = true;
    } else {
      csvInput.value = '';
      const clear = el('button', { type: 'button', text: 'Clear it' });
      clear.addEventListener('click', () => take(''));
      fill(
        held,
        `A CSV of ${String(text.length).replace(/\B(?=(\d{3})+$)/g, ',')} characters is held in memory rather than shown here (text this long would pause the page). ` +
          'Paste, pick or type another to replace it. ',
        clear,
      );
      held.hidden = false;
    }
    compute();
  }

  csvInput.addEventListener('paste', (event) => {
    const text = event.clipboardData?.getData('text/plain') ?? '';
    if (text.length <= SHOWN_CSV_CHARS) return; // the text area takes it as usual
    event.preventDefault();
    const { value, selectionStart, selectionEnd } = csvInput;
    // Taken in a task of its own: reading megabytes from the clipboard (Chromium's getData,
    // above) is a long task by itself, and the text's way to the worker need not lengthen it.
    yieldToPage().then(() => take(value.slice(0, selectionStart) + text + value.slice(selectionEnd)));
  });
  csvInput.addEventListener('input', () => {
    state.csv = csvInput.value;
    held.hidden = true;
    later();
  });
  fileInput.addEventListener('change', async () => {
    const file = fileInput.files?.[0];
    if (!file) return;
    try {
      take(await file.text());
    } catch (err) {
      status.className = 'status alarm';
      status.textContent = `The file could not be read: ${err.message}`;
    }
  });
  measureSelect.addEventListener('change', async () => {
    state.measure = measureSelect.value;
    state.mapping = {};
    compute();
    // Without a CSV there is no view to bring the measure's options: ask for them alone.
    if (state.csv.trim() === '') renderOptions((await engine.view({ csv: '', measure: state.measure || undefined }, { count: 0 })).correction);
  });
  drop00Box.addEventListener('change', () => {
    state.drop00 = drop00Box.checked;
    compute();
  });
  vtypeSelect.addEventListener('change', () => {
    state.vtype = vtypeSelect.value;
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

  /**
   * What the workspace offers to choose from in the view shown (engine.js `yourData.facts`,
   * read in the worker off the records the tools receive): asked once a view and column.
   */
  function facts(column = '') {
    const request = shownRequest;
    if (!request || !view || view.error || view.k === 0) return Promise.resolve({ columns: [], ids: [], values: [], distinct: 0, k: 0 });
    if (factsOf.request !== request) factsOf = { request, byColumn: new Map() };
    if (!factsOf.byColumn.has(column)) factsOf.byColumn.set(column, engine.facts(request, column, MAX_CHOICES));
    return factsOf.byColumn.get(column);
  }

  return {
    workspaceBox,
    /**
     * What the workspace reads of Your data: `k()` its records; `columns()` their columns as
     * the tools name them (escalc's names for the mapped ones; yi, vi and the measure left
     * out), `ids()` (at most MAX_CHOICES) and `values(column)` (the distinct values, at most
     * MAX_CHOICES, and `distinct`, how many), each a promise; `onChange(f)`: `f` is called
     * when a new view is shown.
     */
    facts: {
      k: () => (view && !view.error ? view.k : 0),
      columns: async () => (await facts()).columns,
      ids: async () => (await facts()).ids,
      values: (column) => facts(column),
      onChange: (f) => {
        onChange = f;
      },
    },
    /**
     * A person's run of tool `name` on Your data: resolves to its arguments as JSON text
     * (`args` as typed, completed in Rust with the study column where the tool names one, and
     * Your data's records or CSV rows as `takes`), or rejects with the sentence why not.
     */
    input: async (name, args, takes) => {
      // The view of what the person has chosen by now, once the worker has it.
      for (;;) {
        if (timer) compute();
        const latest = computing;
        await latest;
        if (latest === computing && !timer) break;
      }
      return engine.toolInput(shownRequest ?? request(), name, args, takes);
    },
  };
}
