// Regression tests of the fifth hostile probe's defects (issue 41) as an agent meets them
// in the page.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentCall, launch, openPage } from './helpers.mjs';

test('a JSON null in a record is a missing value on the page, as over MCP and in a CSV', async () => {
  const browser = await launch({ webmcp: true });
  try {
    const { page, errors } = await openPage(browser);
    const records = [
      { id: 'a', yi: 0.1, vi: 0.01, x: 1, note: null },
      { id: 'b', yi: 0.2, vi: 0.02, x: null, note: 'b' },
      { id: 'c', yi: 0.3, vi: 0.03, x: 2, note: null },
      { id: 'd', yi: 0.35, vi: 0.03, x: 3, note: 'd' },
    ];
    const fit = await agentCall(page, 'fit_random_effects', { records });
    assert.notEqual(fit.isError, true, JSON.stringify(fit));
    assert.equal(fit.structuredContent.k, 4);
    const reg = await agentCall(page, 'meta_regression', { records, mods: '~ x' });
    assert.notEqual(reg.isError, true, JSON.stringify(reg));
    assert.equal(reg.structuredContent.k, 3);
    assert.deepEqual(reg.structuredContent.omitted, [{ id: 'b', reason: 'x is empty (null)' }]);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
