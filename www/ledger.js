// The audit ledger view: every tool run on this page (an agent through
// WebMCP or a person through a form) is ledgered in Rust by the engine's
// Session, which hands back the new entry; this view only shows it. The
// SHA-256 hash chain is computed and verified in Rust. Scores never enter it.
//
// A run adds one row; it does not redraw the table. The whole chain is
// re-verified in wasm shortly after a run (at most once per VERIFY_DELAY_MS
// during a burst of calls), so a tool call costs the same on the 200th run as
// on the first, and the status never claims more than was verified.

import { el, fill, table, scroller, downloadNow } from './dom.js';

const VERIFY_DELAY_MS = 100;

function hashCell(hash) {
  return el('code', { class: 'hash', text: hash ?? '' });
}

/** `verify()` and `entriesJson()` come from the engine (async: it runs in a worker). */
export function createLedgerView({ verify, entriesJson, tableTarget, statusTarget, exportButton }) {
  let length = 0;
  let tbody = null;
  let pending = null;

  async function showVerification() {
    pending = null;
    const check = await verify();
    if (pending !== null) return; // a later run waits to be verified; its check will show
    if (check.ok) {
      statusTarget.className = 'status ok';
      statusTarget.textContent =
        check.length === 0
          ? 'No tool runs yet. The chain is empty.'
          : `Chain verified in this browser: ${check.length} ${check.length === 1 ? 'entry' : 'entries'}, each hash recomputed and linked to the one before.`;
    } else {
      statusTarget.className = 'status alarm';
      statusTarget.textContent = `CHAIN BROKEN at entry ${check.seq}: ${check.message}`;
    }
    statusTarget.dataset.verifiedLength = String(check.ok ? check.length : -1);
  }

  function scheduleVerification() {
    if (pending !== null) return;
    statusTarget.className = 'status';
    statusTarget.textContent = `${length} ${length === 1 ? 'entry' : 'entries'}; verifying the chain…`;
    delete statusTarget.dataset.verifiedLength;
    pending = setTimeout(showVerification, VERIFY_DELAY_MS);
  }

  function appendRow(report, via) {
    const { entry } = report;
    if (!tbody) {
      const ledgerTable = table(
        ['Seq', 'Time (UTC)', 'Via', 'Tool', 'Status', 'Arguments', 'Result SHA-256', 'Previous hash', 'Hash'],
        [],
        { caption: 'Tool runs, oldest first', className: 'ledger' },
      );
      tbody = ledgerTable.tBodies[0];
      fill(tableTarget, scroller(ledgerTable, 'Audit ledger entries'));
    }
    tbody.append(
      el(
        'tr',
        { 'data-status': entry.status },
        el('td', { text: String(entry.seq) }),
        el('td', { text: entry.time }),
        el('td', { text: via }),
        el('td', {}, el('code', { text: entry.tool })),
        el('td', { text: entry.status }),
        el('td', {}, el('code', { class: 'args', text: report.args_display })),
        el('td', {}, hashCell(entry.result_sha256)),
        el('td', {}, hashCell(entry.prev_hash)),
        el('td', {}, hashCell(entry.hash)),
      ),
    );
  }

  exportButton.addEventListener('click', async () => {
    downloadNow('audit-ledger.json', await entriesJson(), 'application/json');
  });

  return {
    /** Shows the chain's state once the engine is up. */
    start: showVerification,
    /** Shows one run's ledger entry (`report` is the engine's run report). */
    append(report, via) {
      length += 1;
      exportButton.disabled = false;
      appendRow(report, via);
      scheduleVerification();
    },
  };
}
