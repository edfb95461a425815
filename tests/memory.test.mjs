// What the page holds over a visit (issue 29 item 13): it kept every call's arguments for
// the whole visit (its heap grew from 13 to 54 MB over six calls of 4.7 MB), as the ledger
// entries it keeps to restore the engine's session after a restart. The ledger now holds
// long arguments as their size and SHA-256 (exemplar::session::LEDGER_ARGS_BYTES), and the
// page keeps only the arguments of the loads whose data handles the engine holds.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportedLedger, launch, ledgerVerified, openPage } from './helpers.mjs';

const RECORDS = 90000; // about 4.5 MB of arguments
const MB = 1024 * 1024;

test('six calls of 4.5 MB leave the page\u2019s heap as it was; a load survives a restart of the engine', async (t) => {
  const browser = await launch({ webmcp: false });
  try {
    const { page, context, errors } = await openPage(browser);
    const cdp = await context.newCDPSession(page);
    const heap = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      return (await cdp.send('Runtime.getHeapUsage')).usedSize;
    };
    // Through the page's own registry; the records are built in the page and dropped after.
    const call = (name, args, records = 0) =>
      page.evaluate(
        async ([toolName, toolArgs, n]) => {
          const input = n ? { ...toolArgs, records: Array.from({ length: n }, (_, i) => ({ id: `r${i}`, yi: Math.sin(i) / 3, vi: 0.01 + (i % 17) / 100 })) } : toolArgs;
          const out = JSON.parse(await document.modelContext.executeTool(toolName, input));
          return out.isError ? { error: out.content[0].text } : { k: out.structuredContent?.k, data_id: out.structuredContent?.data_id };
        },
        [name, args, records],
      );

    assert.equal((await call('fit_random_effects', {}, 10)).k, 10);
    await ledgerVerified(page, 1);
    const before = await heap();
    for (let i = 0; i < 6; i += 1) assert.equal((await call('fit_random_effects', {}, RECORDS)).k, RECORDS);
    await ledgerVerified(page, 7);
    const after = await heap();
    assert.ok(
      after - before < 8 * MB,
      `the page's heap grew by ${((after - before) / MB).toFixed(1)} MB over six calls of ${RECORDS} records (${(before / MB).toFixed(1)} -> ${(after / MB).toFixed(1)} MB)`,
    );
    t.diagnostic(`heap ${(before / MB).toFixed(1)} -> ${(after / MB).toFixed(1)} MB over six calls of ${RECORDS} records`);
    const ledger = JSON.parse(await exportedLedger(page));
    assert.match(ledger[6].args, /… \(not kept: \d+ bytes of canonical JSON, SHA-256 [0-9a-f]{64}\)$/);
    assert.deepEqual(ledger[0].args.records.length, 10, 'short arguments are ledgered whole');

    // A load's arguments are kept while its handle is held: after the engine traps and is
    // restarted, the handle still names the same records.
    const loaded = await call('load_data', {}, RECORDS);
    assert.equal(loaded.data_id, 'd1');
    assert.equal((await call('fit_random_effects', { data_id: 'd1' })).k, RECORDS);
    await page.evaluate(async () => (await import('/www/engine.js')).armTrapForTest());
    assert.match((await call('egger_test', {})).error, /^internal_error: /);
    assert.equal((await call('fit_random_effects', { data_id: 'd1' })).k, RECORDS);
    await ledgerVerified(page, 11);
    assert.deepEqual(
      errors.filter((e) => !e.includes('trapForTest: a deliberate panic')),
      [],
    );
  } finally {
    await browser.close();
  }
});
