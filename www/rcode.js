// "R code" and "Methods text" under a result (issue 46): the engine writes both (Rust:
// exemplar::tools::reproduce, asked through the worker's `rcode` op, never ledgered); this
// module only puts its text in two folded blocks with copy buttons, when asked.
import { el } from './dom.js';

/** A folded block titled `title` holding `text`, with a copy button. */
function block(title, text, className) {
  const note = el('span', { class: 'note', role: 'status' });
  const copy = el('button', { type: 'button', text: `Copy ${title}` });
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      note.textContent = ' Copied.';
    } catch {
      note.textContent = ' Copying is blocked here; select the text instead.';
    }
  });
  return el(
    'details',
    { class: `reproduce ${className}` },
    el('summary', { text: title }),
    el('p', { class: 'actions' }, copy, note),
    el('pre', { text }),
  );
}

/**
 * Puts a button after `anchor` (removing an earlier run's) that asks the engine for the R
 * code and methods text of this run (`fetch`, engine.js `rCode`: the run is computed again,
 * so only when asked) and shows them: `{r_code, methods_text}` as two folded blocks,
 * `{error}` (the engine's words, a tool that writes none among them) or null as one line.
 */
export function showReproduction(anchor, fetch, isCurrent) {
  anchor.parentNode?.querySelectorAll(':scope > .reproduce').forEach((node) => node.remove());
  const ask = el('button', { type: 'button', text: 'R code and methods text' });
  const holder = el('p', { class: 'reproduce actions' }, ask);
  ask.addEventListener('click', async () => {
    ask.disabled = true;
    const answer = await fetch();
    if (!isCurrent() || !holder.isConnected) return;
    if (typeof answer?.r_code === 'string') {
      holder.replaceWith(block('R code', answer.r_code, 'r-code'), block('Methods text', answer.methods_text ?? '', 'methods-text'));
    } else {
      const why = answer?.error?.message ?? 'the engine did not answer';
      holder.replaceWith(el('p', { class: 'reproduce note', text: `R code: ${why}` }));
    }
  });
  anchor.after(holder);
}
