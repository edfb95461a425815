// "Your data"'s workspace: a researcher chooses an analysis or a figure, fills a form in
// their own words (pickers of Your data's columns, values and studies where an agent's form
// takes JSON), and reads each result as a paper would: its headline, its figure with the
// figure's downloads, its printed summary; with its provenance (the data's and the result's
// SHA-256, the ledger entry, the call as JSON, every number) folded below.
//
// The choices are the tools' own (www/generated/tools.json, from Rust): a form is built
// from a tool's input schema, so an argument a tool gains appears here by itself, in the
// words of www/words.js where it has them. The engine reads and validates every value; a
// run is ledgered as any other (by the page's runner, app.js).

import { el, fill, downloadNow } from './dom.js';
import { field, defaultText, typeOf, renderResultView, STAGES } from './forms.js';
import { wordsFor } from './words.js';
import { svgNode } from './plots.js';
import { figureDownloads } from './figures.js';

/** The most results kept on the page (older ones are let go, their downloads with them). */
export const MAX_CARDS = 12;
/** The argument asking for the R code and methods text, and the result's fields holding them (issue 46). */
const R_CODE = 'r_code';
const METHODS_TEXT = 'methods_text';
/** The arguments Your data gives (its records or rows), never asked of a person here. */
const GIVEN = new Set(['records', 'data', 'data_id', 'dataset', 'columns']);

/**
 * The most characters of a study's id, a value or a column name a picker shows (the value
 * chosen stays whole): a cell of megabytes laid out in a label would hold the page.
 */
const SHOWN_CHARS = 80;
const shown = (text) => (text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}\u2026` : text);

let uid = 0;

/** What a tool of the workspace takes from Your data: `records`, raw `data`, or nothing. */
export function takesOf(def) {
  const props = def.inputSchema?.properties ?? {};
  if (props.records) return 'records';
  if (props.data && typeOf(props.data) === 'array') return 'data';
  return null;
}

/** A checkbox list (a fieldset): `items` as `[value, text]`, ticked ones kept across refreshes. */
function tickList(name, legend, hintText) {
  const id = `w${++uid}-${name}`;
  const box = el('div', { class: 'ticks' });
  const hint = el('p', { class: 'hint', id: `${id}-hint`, text: hintText });
  const fieldset = el('fieldset', { class: 'field tick-field', 'data-name': name, 'aria-describedby': `${id}-hint` }, el('legend', { text: legend }), box, hint);
  let ticked = new Set();
  const set = (items) => {
    const keep = new Set();
    fill(
      box,
      items.map(([value, text], i) => {
        const input = el('input', { type: 'checkbox', id: `${id}-${i}`, value: String(i), 'data-value': JSON.stringify(value) });
        input.checked = ticked.has(JSON.stringify(value));
        if (input.checked) keep.add(JSON.stringify(value));
        input.addEventListener('change', () => {
          const key = JSON.stringify(value);
          if (input.checked) ticked.add(key);
          else ticked.delete(key);
        });
        return el('label', { class: 'tick', for: `${id}-${i}` }, input, ` ${shown(text)}`);
      }),
    );
    ticked = keep;
  };
  // In the order shown (the records' columns as the engine lists them), not the order ticked.
  const values = () => [...box.querySelectorAll('input:checked')].map((i) => JSON.parse(i.dataset.value));
  return { fieldset, set, values, box };
}

/** A column chosen from Your data's (a select), read by the engine as text. */
function columnField(name, schema, required, words, facts) {
  const id = `w${++uid}-${name}`;
  const select = el('select', { id, name, 'aria-describedby': `${id}-hint` });
  const refresh = async () => {
    const columns = await facts.columns();
    const was = select.value;
    fill(select, el('option', { value: '', text: required ? '(choose a column)' : defaultText(schema) }), columns.map((c) => el('option', { value: c, text: shown(c) })));
    select.value = columns.includes(was) ? was : '';
  };
  const wrapper = el('div', { class: 'field' }, el('label', { for: id, text: words.label }), select, el('p', { class: 'hint', id: `${id}-hint`, text: words.hint }));
  return { name, wrapper, text: () => select.value, refresh };
}

/** A text field with Your data's columns offered as it is typed (a datalist). */
function columnOrText(name, schema, words, facts) {
  const id = `w${++uid}-${name}`;
  const list = el('datalist', { id: `${id}-list` });
  const input = el('input', { id, name, type: 'text', list: `${id}-list`, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': `${id}-hint` });
  const refresh = async () => fill(list, (await facts.columns()).map((c) => el('option', { value: c })));
  const wrapper = el('div', { class: 'field' }, el('label', { for: id, text: words.label }), input, list, el('p', { class: 'hint', id: `${id}-hint`, text: words.hint }));
  return { name, wrapper, text: () => input.value, refresh };
}

/** Columns ticked (e.g. the forest plot's ilab): an array of their names, in the order shown. */
function columnsField(name, words, facts) {
  const ticks = tickList(name, words.label, words.hint);
  const refresh = async () => ticks.set((await facts.columns()).map((c) => [c, c]));
  return { name, wrapper: ticks.fieldset, value: () => (ticks.values().length ? ticks.values() : undefined), refresh };
}

/** Studies ticked (`exclude`): their ids; typed, comma-separated, when there are many. */
function idsField(name, schema, words, facts) {
  const ticks = tickList(name, words.label, words.hint);
  const id = `w${++uid}-${name}`;
  const typed = el('input', { id, type: 'text', autocomplete: 'off', spellcheck: 'false', hidden: '' });
  const typedLabel = el('label', { for: id, hidden: '', text: 'Their ids, separated by commas' });
  ticks.fieldset.append(typedLabel, typed);
  let many = false;
  const refresh = async () => {
    const ids = await facts.ids();
    many = facts.k() > ids.length;
    typed.hidden = typedLabel.hidden = !many;
    ticks.box.hidden = many;
    ticks.set(many ? [] : ids.map((i) => [i, i]));
  };
  const value = () => {
    const chosen = many ? typed.value.split(',').map((s) => s.trim()).filter(Boolean) : ticks.values();
    return chosen.length ? chosen : undefined;
  };
  return { name, wrapper: ticks.fieldset, value, refresh };
}

/** metafor's subset: a column, and the values whose studies are kept (`{column, in}`). */
function subsetField(name, words, facts) {
  const id = `w${++uid}-${name}`;
  const column = el('select', { id, 'aria-describedby': `${id}-hint` });
  const ticks = tickList(`${name}-values`, 'Keep the studies whose value is', '');
  ticks.fieldset.hidden = true;
  ticks.fieldset.querySelector('p.hint').remove();
  const note = el('p', { class: 'note', hidden: '' });
  const showValues = async () => {
    const chosen = column.value;
    ticks.fieldset.hidden = chosen === '';
    note.hidden = true;
    if (!chosen) return;
    const { values, distinct } = await facts.values(chosen);
    if (column.value !== chosen) return;
    values.sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b))));
    if (distinct > values.length) {
      note.hidden = false;
      note.textContent = `${chosen} has ${distinct} distinct values; the first ${values.length} are offered.`;
    }
    ticks.set(values.map((v) => [v, String(v)]));
  };
  column.addEventListener('change', showValues);
  const refresh = async () => {
    const columns = await facts.columns();
    const was = column.value;
    fill(column, el('option', { value: '', text: '(all studies)' }), columns.map((c) => el('option', { value: c, text: shown(c) })));
    column.value = columns.includes(was) ? was : '';
    await showValues();
  };
  const wrapper = el(
    'div',
    { class: 'field subset' },
    el('label', { for: id, text: words.label }),
    column,
    el('p', { class: 'hint', id: `${id}-hint`, text: words.hint }),
    ticks.fieldset,
    note,
  );
  const value = () => {
    if (!column.value) return undefined;
    return { column: column.value, in: ticks.values() };
  };
  return { name, wrapper, value, refresh };
}

/** A list of a fixed length (alim, xlim: two numbers; header: two titles): one input each. */
function fixedListField(name, schema, words) {
  const count = schema.maxItems;
  const numeric = ['number', 'integer'].includes(typeOf(schema.items ?? {}));
  const id = `w${++uid}-${name}`;
  const inputs = Array.from({ length: count }, (_, i) =>
    el('input', { id: `${id}-${i}`, type: 'text', inputmode: numeric ? 'decimal' : 'text', autocomplete: 'off', 'aria-label': `${words?.label ?? name}, ${i === 0 ? 'first' : i === 1 ? 'second' : `item ${i + 1}`}` }),
  );
  const hint = el('p', { class: 'hint', id: `${id}-hint`, text: words?.hint ?? schema.description ?? '' });
  const wrapper = el(
    'fieldset',
    { class: 'field fixed-list', 'data-name': name, 'aria-describedby': `${id}-hint` },
    el('legend', { text: words?.label ?? name }),
    el('span', { class: 'inline-inputs' }, inputs.map((input, i) => [i ? ' ' : '', input])),
    hint,
  );
  const typed = () => inputs.map((i) => i.value.trim());
  // Numbers go to the engine as text (it reads them, and names one that is not a number);
  // titles go as they are typed (a title may hold a comma).
  if (numeric) return { name, wrapper, text: () => (typed().every((t) => t === '') ? '' : typed().join(', ')) };
  return { name, wrapper, value: () => (typed().every((t) => t === '') ? undefined : typed()) };
}

/**
 * The workspace's field for argument `name` of schema `schema`: a picker where words.js
 * says how a person gives it, a list of fixed length as that many inputs, and otherwise the
 * agent form's own field (forms.js `field`), labelled in words. Each has `text()` (read by
 * the engine, as an agent form's field) or `value()` (the argument itself, or undefined).
 */
function workspaceField(name, schema, required, facts) {
  const words = wordsFor(name, schema);
  switch (words?.picks) {
    case 'column':
      return columnField(name, schema, required, words, facts);
    case 'column-or-text':
      return columnOrText(name, schema, words, facts);
    case 'columns':
      if (typeOf(schema) === 'array') return columnsField(name, words, facts);
      break;
    case 'ids':
      if (typeOf(schema) === 'array') return idsField(name, schema, words, facts);
      break;
    case 'subset':
      return subsetField(name, words, facts);
    default:
  }
  if (typeOf(schema) === 'array' && schema.maxItems >= 2 && schema.maxItems <= 3 && schema.minItems === schema.maxItems) {
    return fixedListField(name, schema, words);
  }
  const plain = field(name, schema, required, { label: words?.label, marked: false });
  return { name, wrapper: plain.wrapper, text: () => plain.input.value };
}

/**
 * A form of tool `def` on Your data. `onRun(args, signal, onProgress)` runs it (`args`:
 * the arguments chosen, which Your data completes). Returns the form element and its
 * fields' `refresh()` (Your data changed).
 */
function workspaceForm(def, facts, onRun, offersRCode) {
  const schema = def.inputSchema ?? {};
  const required = new Set(schema.required ?? []);
  const props = Object.entries(schema.properties ?? {}).filter(([name, s]) => !GIVEN.has(name) && !(name === 'measure' && !Array.isArray(s.enum)));
  const fields = props.map(([name, s]) => workspaceField(name, s, required.has(name), facts));
  // The R script that reproduces the result with metafor, and a methods paragraph (issue 46,
  // `r_code: true`), where the engine writes them.
  const rCodeId = `w${++uid}-r-code`;
  const rCodeBox = el('input', { type: 'checkbox', id: rCodeId, name: R_CODE });
  const rCode = el('div', { class: 'field r-code-choice', hidden: '' }, el('label', { for: rCodeId, class: 'tick' }, rCodeBox, ' Also write the R code (metafor) and a methods paragraph'));
  offersRCode.then((yes) => {
    rCode.hidden = !yes;
  });
  const button = el('button', { type: 'submit', class: 'primary', text: 'Run' });
  const cancel = el('button', { type: 'button', class: 'cancel', text: 'Cancel', disabled: '' });
  const progress = el('p', { class: 'progress', role: 'status' });
  let controller = null;
  cancel.addEventListener('click', () => controller?.abort());
  const form = el(
    'form',
    { class: 'workspace-form', 'data-tool': def.name, 'aria-label': `${def.title ?? def.name}: options` },
    def.summary ? el('p', { class: 'summary', text: def.summary }) : null,
    fields.length ? el('div', { class: 'fields' }, fields.map((f) => f.wrapper)) : null,
    rCode,
    el('div', { class: 'actions' }, button, ' ', cancel),
    progress,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    button.disabled = true;
    cancel.disabled = false;
    controller = new AbortController();
    progress.textContent = 'Running\u2026';
    try {
      const texts = Object.fromEntries(fields.filter((f) => f.text).map((f) => [f.name, f.text()]));
      const values = Object.fromEntries(fields.filter((f) => f.value).flatMap((f) => (f.value() === undefined ? [] : [[f.name, f.value()]])));
      if (!rCode.hidden && rCodeBox.checked) values[R_CODE] = true;
      await onRun(texts, values, controller.signal, (stage) => {
        progress.textContent = `Running: ${STAGES[stage] ?? stage}\u2026`;
      });
      progress.textContent = '';
    } catch (err) {
      progress.textContent = `Not run: ${err.message}`;
    } finally {
      button.disabled = false;
      cancel.disabled = true;
      controller = null;
    }
  });
  const refresh = () => Promise.all(fields.map((f) => f.refresh?.())).catch((err) => console.error(err));
  refresh();
  return { form, refresh };
}

/** The result's `dataset` objects ({name, sha256}), wherever they are in it (a plot's fit holds its own). */
function datasetsOf(result, found = [], depth = 0) {
  if (!result || typeof result !== 'object' || depth > 3) return found;
  if (result.dataset && typeof result.dataset === 'object' && 'sha256' in result.dataset) found.push(result.dataset);
  for (const [key, value] of Object.entries(result)) if (key !== 'dataset' && value && typeof value === 'object' && !Array.isArray(value)) datasetsOf(value, found, depth + 1);
  return found;
}

/**
 * Builds the workspace into `target`. `definitions` are the tools' (tools.json); `run(name,
 * argsText, signal, onProgress)` runs and ledgers a call; `engine` is engine.js (its
 * `formArgs`, `resultView`, `figureOf`, `companionPlot`, `responseOf`, `figures`);
 * `yourInput(name, args, takes)` completes the arguments with Your data (JSON text);
 * `facts` is Your data's (your-data.js): `k()`, and `columns()`, `ids()`, `values(column)`.
 * `offersRCode` resolves to whether the engine writes R code and methods text (`r_code`).
 * Returns `{ refresh() }`, to call when Your data has changed.
 */
export function createWorkspace({ target, definitions, run, engine, yourInput, facts, offersRCode = Promise.resolve(false) }) {
  const tools = definitions.filter((def) => takesOf(def) && def.group?.key !== 'data');
  const picker = el('select', { id: 'workspace-tool', 'aria-describedby': 'workspace-tool-hint' });
  const groups = [];
  for (const def of tools) {
    let group = groups.find((g) => g.key === def.group?.key);
    if (!group) groups.push((group = { key: def.group?.key, node: el('optgroup', { label: def.group?.title ?? '' }) }));
    group.node.append(el('option', { value: def.name, text: def.title ?? def.name }));
  }
  fill(picker, groups.map((g) => g.node));
  const formBox = el('div', { class: 'workspace-form-box' });
  const cards = el('div', { id: 'workspace-results', class: 'workspace-results' });
  const announce = el('p', { class: 'visually-hidden', role: 'status', id: 'workspace-announce' });
  const waiting = el('p', { class: 'note', id: 'workspace-waiting', text: 'Paste a CSV and choose a measure above; then choose an analysis or a figure here.' });
  const forms = new Map();
  const body = el(
    'div',
    { class: 'workspace-body' },
    el('div', { class: 'field' }, el('label', { for: 'workspace-tool', text: 'Analysis or figure' }), picker, el('p', { class: 'hint', id: 'workspace-tool-hint', text: 'It runs on your records; every run is in the audit ledger.' })),
    formBox,
  );
  fill(target, el('h3', { id: 'workspace-title', text: 'Analyse your data' }), waiting, body, announce, cards);

  const runTool = (def) => async (texts, values, signal, onStage) => {
    const read = await engine.formArgs(def.inputSchema, texts, true);
    const args = { ...read, ...values };
    const argsText = await yourInput(def.name, args, takesOf(def));
    const report = await run(def.name, argsText, signal, ({ stage }) => onStage(stage));
    const card = await showCard(def, args, report);
    // The result is where a person reads on (the form above may be a screen long on a phone).
    card.querySelector('h4').focus();
  };

  function formOf(def) {
    if (!forms.has(def.name)) forms.set(def.name, workspaceForm(def, facts, runTool(def), offersRCode));
    return forms.get(def.name);
  }

  function choose() {
    const def = tools.find((d) => d.name === picker.value);
    if (def) fill(formBox, formOf(def).form);
  }
  picker.addEventListener('change', choose);
  choose();

  /** A result card: headline, figure and downloads, printed summary; provenance folded. */
  async function showCard(def, args, report) {
    const id = `card-${++uid}`;
    const failed = 'error' in report && report.error;
    const remove = el('button', { type: 'button', class: 'remove', text: 'Remove', 'aria-label': `Remove this result (${def.title ?? def.name})` });
    const heading = el('h4', { id: `${id}-title`, tabindex: '-1' }, def.title ?? def.name, el('span', { class: 'note', text: ` \u00b7 run ${report.entry.seq}` }));
    const card = el('article', { class: `result-card${failed ? ' failed' : ''}`, id, 'data-tool': def.name, 'aria-labelledby': `${id}-title` }, el('div', { class: 'card-head' }, heading, remove));
    remove.addEventListener('click', () => {
      for (const a of card.querySelectorAll('a[download]')) URL.revokeObjectURL(a.href);
      // The focus goes to the next result, else back to the choice of analysis.
      const next = card.nextElementSibling ?? card.previousElementSibling;
      card.remove();
      (next?.querySelector('h4') ?? picker).focus();
    });
    cards.prepend(card);
    while (cards.children.length > MAX_CARDS) {
      const old = cards.lastElementChild;
      for (const a of old.querySelectorAll('a[download]')) URL.revokeObjectURL(a.href);
      old.remove();
    }
    if (failed) {
      card.append(el('p', { class: 'status alarm', role: 'alert', text: `Not run: ${report.error.message}` }));
      announce.textContent = `${def.title ?? def.name}: not run.`;
      return card;
    }
    const view = await engine.resultView(def.name, report);
    const [headline, ...rest] = (view?.summary ?? '').split('\n');
    const summary = rest.join('\n').replace(/^\n+/, '');
    const figureSlot = el('div', { class: 'figure-slot' });
    const result = engine.responseOf(report).structuredContent ?? {};
    const parts = [
      headline ? el('p', { class: 'headline', text: headline }) : null,
      figureSlot,
      summary ? el('pre', { class: 'summary', tabindex: '0', 'aria-label': 'Printed summary', text: summary }) : null,
      reproduction(def, report, result),
      provenance(def, args, report, view, result),
    ];
    card.append(...parts.filter(Boolean));
    announce.textContent = `${def.title ?? def.name}: ${headline || 'done'}.`;
    // The figure: a plot tool's own, else the plot that goes with the result (the fit's forest).
    let figure = engine.figureOf(report, view);
    let tool = def.name;
    if (!figure && report.plot) {
      const out = await engine.companionPlot(def.name, report.entry.seq);
      if (out?.ok) [figure, tool] = [out.ok, out.tool];
      else if (out?.error) figureSlot.append(el('p', { class: 'status alarm', text: `The plot could not be drawn: ${out.error.message}` }));
    }
    if (figure) drawFigure(figureSlot, tool, figure);
    return card;
  }

  function drawFigure(slot, tool, figure) {
    if (typeof figure.svg !== 'string') {
      // Too long to draw without holding the page: offered as a download.
      fill(slot, el('p', { class: 'note' }, 'The figure is too large to draw here. ', figureDownloads(tool, figure.svgBlob, engine)));
      return;
    }
    let svg;
    try {
      svg = svgNode(figure.svg);
    } catch (err) {
      fill(slot, el('p', { class: 'status alarm', text: `The plot could not be drawn: ${err.message}` }));
      return;
    }
    fill(
      slot,
      el(
        'figure',
        { class: 'plot', 'data-plot-tool': tool },
        el('div', { class: 'plot-scroll', role: 'region', tabindex: '0', 'aria-label': `The figure (${tool})` }, svg),
        el('figcaption', { class: 'actions' }, figureDownloads(tool, figure.svg, engine)),
      ),
    );
  }

  /** The result's methods paragraph and R script (issue 46), when it has them: each to copy, the script to download. */
  function reproduction(def, report, result) {
    const methods = typeof result[METHODS_TEXT] === 'string' ? result[METHODS_TEXT] : null;
    const script = typeof result[R_CODE] === 'string' ? result[R_CODE] : null;
    if (!methods && !script) return null;
    const copied = el('span', { class: 'note', role: 'status' });
    const copyButton = (label, text) => {
      const button = el('button', { type: 'button', text: label });
      button.addEventListener('click', async () => {
        try {
          await navigator.clipboard.writeText(text);
          copied.textContent = ' Copied.';
        } catch {
          copied.textContent = ' Copying is blocked here; select the text instead.';
        }
      });
      return button;
    };
    const download = el('button', { type: 'button', text: 'Download the R script' });
    download.addEventListener('click', () => downloadNow(`${def.name}-${report.entry.seq}.R`, script, 'text/plain'));
    return el(
      'div',
      { class: 'reproduction' },
      methods ? [el('p', { class: 'label', text: 'Methods text' }), el('p', { class: 'methods-text', text: methods })] : null,
      script ? [el('p', { class: 'label', text: 'R code (metafor)' }), el('pre', { class: 'r-code', tabindex: '0', 'aria-label': 'R code', text: script })] : null,
      el('p', { class: 'actions' }, methods ? copyButton('Copy the methods text', methods) : null, script ? copyButton('Copy the R code', script) : null, script ? download : null, copied),
    );
  }

  function provenance(def, args, report, view, result) {
    const entry = report.entry;
    const datasets = datasetsOf(result);
    const row = (term, ...value) => [el('dt', { text: term }), el('dd', {}, ...value)];
    const code = (text) => el('code', { class: 'hash', text });
    const call = { tool: def.name, arguments: args, [takesOf(def)]: `Your data (${facts.k()} records)` };
    const tables = el('div', { class: 'result-view' });
    if (view) renderResultView(tables, { ...view, summary: null }).catch((err) => console.error(err));
    const download = el('button', { type: 'button', text: 'Download the result (JSON)' });
    download.addEventListener('click', () => downloadNow(`${def.name}-result-${entry.seq}.json`, JSON.stringify(result, null, 2), 'application/json'));
    return el(
      'details',
      { class: 'provenance' },
      el('summary', { text: 'Provenance: the data, the call and every number' }),
      el(
        'dl',
        { class: 'facts' },
        datasets.map((d) => row(`Data: ${d.name}`, code(d.sha256))),
        row('Result SHA-256', code(entry.result_sha256)),
        row('Audit ledger', `entry ${entry.seq}, ${entry.time}, hash `, code(entry.hash)),
        row('Engine version', entry.engine_version),
      ),
      el('p', { class: 'label', text: 'The call (JSON)' }),
      el('pre', { class: 'call', tabindex: '0', text: JSON.stringify(call, null, 2) }),
      tables,
      el('p', { class: 'actions' }, download),
    );
  }

  const refresh = () => {
    const ready = facts.k() > 0;
    waiting.hidden = ready;
    body.hidden = !ready;
    for (const f of forms.values()) f.refresh();
    // Your data changed: the results shown are of the data as it was (their provenance says which).
    for (const card of cards.querySelectorAll('.result-card:not(.stale)')) {
      card.classList.add('stale');
      card.querySelector('.card-head').after(el('p', { class: 'note stale-note', text: 'Of Your data as it was before its latest change.' }));
    }
  };
  refresh();
  return { refresh };
}
