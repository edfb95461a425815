// A form per tool, generated from its JSON Schema. The form only gathers
// what a person typed: the engine reads it as the schema says (formArgs,
// exemplar::session::form), names a field it cannot read, and validates the
// arguments against the same schema when the tool runs.

import { el, fill, table, tableRow, scroller, appendInSlices, yieldToPage, rowsPerSlice } from './dom.js';
import { wordsFor, choiceText } from './words.js';

let uid = 0;

export function typeOf(schema) {
  const t = schema.type;
  return Array.isArray(t) ? t.find((x) => x !== 'null') : t;
}

/** What an empty choice means: the default, named when the schema gives it. */
export function defaultText(schema) {
  return schema.default === undefined ? '(default)' : `(default: ${typeof schema.default === 'string' ? schema.default : JSON.stringify(schema.default)})`;
}

/**
 * One input per property, its control chosen by the property's type. Returns
 * `{ wrapper, name, input }`: the engine reads `input.value` (formArgs). The hint is in a
 * person's words where words.js has them (the schema's terse description otherwise), and
 * an enum's choices say what each means; `label` (the field's name by default) is what
 * the label shows.
 */
export function field(name, schema, required, { label, marked = true } = {}) {
  const id = `f${++uid}-${name}`;
  const hintId = `${id}-hint`;
  const type = typeOf(schema);
  const itemType = type === 'array' ? typeOf(schema.items ?? {}) : undefined;
  const words = wordsFor(name, schema);
  const hints = [];
  // A field that is typed here says how it is typed, not how a picker (workspace.js) takes it.
  const hint = words?.picks ? words.typed ?? words.hint : words?.hint;
  if (hint) hints.push(hint);
  else if (schema.description) hints.push(schema.description);
  let input;

  if (Array.isArray(schema.enum)) {
    // Each choice's value is its JSON text, which the engine reads.
    input = el(
      'select',
      { id, name, 'aria-describedby': hintId },
      required ? null : el('option', { value: '', text: defaultText(schema) }),
      schema.enum.map((v) => el('option', { value: JSON.stringify(v), text: choiceText(words, v) })),
    );
  } else if (type === 'number' || type === 'integer') {
    input = el('input', {
      id,
      name,
      type: 'text',
      inputmode: 'decimal',
      autocomplete: 'off',
      // The default shows where nothing is typed (and is what an empty field means).
      placeholder: typeof schema.default === 'number' ? String(schema.default) : undefined,
      'aria-describedby': hintId,
    });
    const bounds = [];
    if (schema.minimum !== undefined) bounds.push(`minimum ${schema.minimum}`);
    if (schema.maximum !== undefined) bounds.push(`maximum ${schema.maximum}`);
    if (bounds.length) hints.push(`A ${type}, ${bounds.join(', ')}.`);
  } else if (type === 'boolean') {
    input = el(
      'select',
      { id, name, 'aria-describedby': hintId },
      required ? null : el('option', { value: '', text: defaultText(schema) }),
      el('option', { value: 'true', text: 'true' }),
      el('option', { value: 'false', text: 'false' }),
    );
  } else if (type === 'array' && (itemType === 'string' || itemType === 'number' || itemType === 'integer')) {
    input = el('input', { id, name, type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': hintId });
    const itemTypes = [schema.items?.type].flat();
    hints.push(
      itemTypes.includes('string') && itemTypes.includes('integer')
        ? 'Type positions or names separated by commas.'
        : itemType === 'string'
          ? 'Type the items separated by commas.'
          : 'Type the numbers separated by commas.',
    );
  } else if (type === 'string') {
    input = el('input', { id, name, type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': hintId });
    // A formula or a list of terms (`mods`): how the field reads what is typed.
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (types.includes('array')) hints.push('Type a formula starting with ~, or the terms separated by commas.');
  } else {
    input = el('textarea', { id, name, rows: '4', spellcheck: 'false', 'aria-describedby': hintId });
    hints.push('JSON.');
  }

  const wrapper = el(
    'div',
    { class: 'field' },
    el('label', { for: id }, label ?? el('code', { text: name }), required ? ' (required)' : marked ? ' (optional)' : ''),
    input,
    el('p', { class: 'hint', id: hintId, text: hints.join(' ') }),
  );
  return { wrapper, name, input };
}

/**
 * "Run on" for a tool that takes `records` (the frozen dataset, or the records
 * typed, / your data's records) or raw `data` (the rows typed / your data's
 * rows). Returns `{ fieldset, yours() }`; choosing "your data" disables the
 * typed field, which Your data replaces.
 */
function runOnChoice(yoursField, takes, replaced) {
  const name = `run-on-${++uid}`;
  const radio = (value, label, checked) =>
    el('label', { class: 'choice' }, el('input', { type: 'radio', name, value, checked }), ` ${label}`);
  const frozen =
    takes === 'records'
      ? radio('frozen', 'frozen dataset (or the records typed below)', true)
      : radio('typed', 'the rows typed below', true);
  const yours =
    takes === 'records'
      ? radio('yours', 'your data (the records of the Your data section)', false)
      : radio('yours', 'your data (the rows of the Your data section, with its columns as mapped there)', false);
  const fieldset = el('fieldset', { class: 'run-on' }, el('legend', { text: 'Run on' }), frozen, yours);
  const yoursInput = yours.querySelector('input');
  // Your data replaces the data arguments: their fields are hidden while it is chosen.
  fieldset.addEventListener('change', () => {
    yoursField.input.disabled = yoursInput.checked;
    for (const f of replaced) f.wrapper.hidden = yoursInput.checked;
  });
  return { fieldset, yours: () => yoursInput.checked };
}

/**
 * A form for one tool definition. `onRun(args, signal, onProgress)` is
 * awaited on submit (`args` the arguments object, turned into text by the
 * engine a slice at a time, or, on Your data, their JSON text); it shows the
 * run's result in the result area (as an agent's run is). While it runs,
 * Cancel aborts `signal`, and a progress line says where the run is and for
 * how long it has run. `yourInput(name, args, takes)` resolves to the
 * arguments of a run on Your data (`args` as typed, completed there, with its
 * `records` or `data` as `takes`) as JSON text, or rejects saying why not.
 * `formArgs(schema, fields, lenient)` is the
 * engine's reading of the text typed (`fields`: name → text) as arguments,
 * resolving to them or rejecting with the sentence that names a field to fix
 * (`lenient`: on Your data, which may fill a required field). Returns `{ form, result }`: the result
 * area is placed by the caller, outside the form, so that a run shows even
 * while the form is folded away.
 */
export function toolForm(def, onRun, { yourInput, formArgs }) {
  const schema = def.inputSchema ?? {};
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(props).map(([name, s]) => field(name, s, required.has(name)));
  // Your data replaces the records (an analysis, a plot) or, for a tool of raw data, the rows.
  const recordsField = fields.find((f) => f.name === 'records');
  const dataField = fields.find((f) => f.name === 'data' && typeOf(props.data) === 'array');
  const yoursField = recordsField ?? dataField;
  const takes = recordsField ? 'records' : 'data';
  // The fields that name data (records or rows, a handle, the frozen dataset): Your data replaces them all.
  const replaced = fields.filter((f) => f === yoursField || ['data_id', 'dataset'].includes(f.name));
  const runOn = yoursField && yourInput ? runOnChoice(yoursField, takes, replaced) : null;
  const outputId = `out${++uid}`;
  const output = el('pre', { class: 'result', id: outputId, 'aria-live': 'polite', tabindex: '0' });
  // A result reads as tables (the engine's view of it); its JSON, every digit, is folded
  // below them. A status ("Running…", an error) shows with the fold open.
  const view = el('div', { class: 'result-view' });
  const json = el('details', { class: 'result-json', open: true }, el('summary', { text: 'As JSON (every digit)' }), output);
  const status = (text, isError) => {
    fill(view);
    view.removeAttribute('aria-busy');
    json.open = true;
    output.textContent = text;
    output.classList.toggle('error', isError);
  };
  const button = el('button', { type: 'submit', text: `Run ${def.name}` });
  const cancel = el('button', { type: 'button', class: 'cancel', text: 'Cancel', disabled: '' });
  const progressBar = el('progress', { 'aria-label': `Progress of ${def.name}` });
  const progressText = el('span', { class: 'progress-text' });
  const progress = el('p', { class: 'progress', role: 'status', hidden: '' }, progressBar, ' ', progressText);
  let controller = null;
  cancel.addEventListener('click', () => controller?.abort());
  const form = el(
    'form',
    { class: 'tool-form', 'aria-label': `Run ${def.name}` },
    runOn?.fieldset,
    fields.length
      ? fields.map((f) => f.wrapper)
      : el('p', { class: 'hint', text: 'This tool takes no arguments.' }),
    el('div', { class: 'actions' }, button, ' ', cancel),
    progress,
  );
  const result = el('div', { class: 'tool-result' }, el('p', { class: 'output-label', text: 'Result' }), view, json);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    let args = {};
    // Not submitted again while the text is read (by the whole engine, which may be loading).
    button.disabled = true;
    try {
      const yours = runOn?.yours() ?? false;
      const typed = Object.fromEntries(fields.filter((f) => !(yours && replaced.includes(f))).map((f) => [f.name, f.input.value]));
      args = await formArgs(schema, typed, yours);
      if (yours) args = await yourInput(def.name, args, takes);
    } catch (err) {
      status(`Not run: ${err.message}`, true);
      button.disabled = false;
      return;
    }
    controller = new AbortController();
    cancel.disabled = false;
    status('Running…', false);
    const shown = showProgress(progress, progressBar, progressText);
    try {
      await onRun(args, controller.signal, shown.update);
    } catch (err) {
      status(`Not run: ${err.message}`, true);
    } finally {
      shown.stop();
      button.disabled = false;
      cancel.disabled = true;
      controller = null;
    }
  });
  return { form, result };
}

/**
 * Shows a result in `target` as the engine's view gives it (session.rs `view`: the printed
 * summary, as metafor's print methods lay it out, then tables of values rounded as metafor
 * prints them): one table per part, each scrolling inside itself, with a note where a long
 * list was cut, and the rounding said once. Text only: every cell is set as text. The
 * summary and each table's first cells (dom.js FIRST_CELLS) are shown at once; a table's further
 * rows are appended in slices (dom.js `appendInSlices`), while `target` is `aria-busy`,
 * until all are shown or `current()` turns false (a later result replaces this one).
 * Resolves to whether every row was shown.
 */
export async function renderResultView(target, view, current = () => true) {
  const later = [];
  const tables = view.tables.map((t) => {
    const numeric = new Set(t.numeric);
    const { first, most } = rowsPerSlice(t.columns.length);
    const node = table(t.columns, t.rows.slice(0, first), { caption: t.caption, className: 'result-table', numeric });
    if (t.rows.length > first) later.push({ body: node.tBodies[0], rows: t.rows.slice(first), numeric, most });
    return [
      scroller(node, t.caption),
      t.rows.length < t.total_rows
        ? el('p', { class: 'note', text: `The first ${t.rows.length} of ${t.total_rows} rows; the JSON has them all.` })
        : null,
    ];
  });
  fill(target, view.summary ? el('pre', { class: 'summary', text: view.summary }) : null, tables, el('p', { class: 'note', text: view.note }));
  if (later.length === 0) {
    target.removeAttribute('aria-busy');
    return true;
  }
  target.setAttribute('aria-busy', 'true');
  try {
    for (const { body, rows, numeric, most } of later) {
      await yieldToPage();
      if (!current()) return false;
      const done = await appendInSlices(body, rows, (row) => tableRow(row, numeric), { first: 1, most, current });
      if (!done) return false;
    }
    return true;
  } finally {
    if (current()) target.removeAttribute('aria-busy');
  }
}

/** What each stage of a run (engine.js's `run`) is called in the progress line. */
export const STAGES = {
  queued: 'waiting for the runs before it',
  starting: 'starting the engine',
  loading: 'loading the whole engine',
  input: 'preparing the input',
  computing: 'computing in the engine',
};

/** Shown after this long, so that a quick run does not flash a progress line. */
const PROGRESS_DELAY_MS = 300;

/**
 * Shows a run's progress: its stage (with the share done where it is known)
 * and the time since it started, updated while it runs. Returns `{update,
 * stop}`.
 */
function showProgress(line, bar, text) {
  const started = performance.now();
  let state = { stage: 'queued' };
  const render = () => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const share = state.total ? state.done / state.total : null;
    if (share === null) bar.removeAttribute('value');
    else bar.value = share;
    const part = share === null ? '' : ` (${Math.round(share * 100)}%)`;
    text.textContent = `${STAGES[state.stage] ?? state.stage}${part}; ${seconds} s`;
    line.hidden = performance.now() - started < PROGRESS_DELAY_MS;
  };
  const timer = setInterval(render, 100);
  return {
    update(next) {
      state = next;
      render();
    },
    stop() {
      clearInterval(timer);
      line.hidden = true;
    },
  };
}
