// The audit ledger view: every tool run on this page (an agent through
// WebMCP or a person through a form) is appended to the wasm Ledger, whose
// SHA-256 hash chain is computed and verified in Rust. Scores never enter it.

import { el, fill, table, scroller, downloadNow } from './dom.js';

function hashCell(hash) {
  return el('code', { class: 'hash', text: hash ?? '' });
}

export function createLedgerView({ Ledger, tableTarget, statusTarget, exportButton }) {
  const ledger = new Ledger();
  // How each entry arrived, for display only; the chain itself records what ran.
  const via = [];

  function render() {
    const entries = JSON.parse(ledger.entriesJson());
    const check = JSON.parse(ledger.verify());
    if (check.ok) {
      statusTarget.className = 'status ok';
      statusTarget.textContent =
        entries.length === 0
          ? 'No tool runs yet. The chain is empty.'
          : `Chain verified in this browser: ${check.length} ${check.length === 1 ? 'entry' : 'entries'}, each hash recomputed and linked to the one before.`;
    } else {
      statusTarget.className = 'status alarm';
      statusTarget.textContent = `CHAIN BROKEN at entry ${check.seq}: ${check.message}`;
    }
    exportButton.disabled = entries.length === 0;
    if (entries.length === 0) {
      fill(tableTarget);
      return;
    }
    const rows = entries.map((e, i) => [
      String(e.seq),
      e.time,
      via[i] ?? '',
      el('code', { text: e.tool }),
      el('code', { class: 'args', text: typeof e.args === 'string' ? e.args : JSON.stringify(e.args) }),
      hashCell(e.result_sha256),
      hashCell(e.prev_hash),
      hashCell(e.hash),
    ]);
    fill(
      tableTarget,
      scroller(
        table(['Seq', 'Time (UTC)', 'Via', 'Tool', 'Arguments', 'Result SHA-256', 'Previous hash', 'Hash'], rows, {
          caption: 'Tool runs, oldest first',
          className: 'ledger',
        }),
        'Audit ledger entries',
      ),
    );
  }

  exportButton.addEventListener('click', () => {
    downloadNow('audit-ledger.json', ledger.entriesJson(), 'application/json');
  });
  render();

  return {
    append(tool, argsJson, resultJson, how) {
      ledger.append(tool, argsJson, resultJson, new Date().toISOString());
      via.push(how);
      render();
    },
  };
}
