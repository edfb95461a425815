// The WebMCP bridge (crates/xtask/bridge/webmcp-bridge.mjs) as an MCP client without a
// WebMCP browser uses it: against the served page, tools/list lists the page's tools, and
// a fit, a refit without s04 and Egger's test, each run in the page, score 13/13.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { BASE_URL, answerFrom, cliToolNames, launch, openPage, scoreWithCli } from './helpers.mjs';

const BRIDGE = 'crates/xtask/bridge/webmcp-bridge.mjs';

/** The tools the page registers, as a WebMCP agent in Chromium discovers them. */
async function pageTools() {
  const browser = await launch({ webmcp: true });
  try {
    const { page } = await openPage(browser);
    return await page.evaluate(async () =>
      (await document.modelContext.getTools()).map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: { ...t.annotations },
      })),
    );
  } finally {
    await browser.close();
  }
}

test('the bridge serves the page\'s WebMCP tools over MCP; fit, refit and Egger run in the page and score 13/13', async () => {
  const registered = await pageTools();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BRIDGE, '--url', `${BASE_URL}/`],
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr.on('data', (chunk) => (log += chunk));
  const client = new Client({ name: 'bridge-test', version: '1.0.0' });
  await client.connect(transport);
  let closed = false;
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...cliToolNames()].sort(), 'the tools the Rust registry defines');
    for (const tool of tools) {
      const own = registered.find((t) => t.name === tool.name);
      assert.ok(own, `${tool.name} is registered in the page`);
      assert.equal(tool.description, own.description);
      assert.equal(tool.title, own.title);
      assert.deepEqual(tool.inputSchema, own.inputSchema);
      for (const [hint, value] of Object.entries(own.annotations)) {
        assert.equal(tool.annotations?.[hint] ?? tool._meta?.[hint], value, `${hint} of ${tool.name}`);
      }
    }

    const fit = await client.callTool({ name: 'fit_random_effects', arguments: {} });
    const refit = await client.callTool({ name: 'refit_excluding', arguments: { exclude: ['s04'] } });
    const egger = await client.callTool({ name: 'egger_test', arguments: {} });
    for (const result of [fit, refit, egger]) {
      assert.ok(!result.isError, JSON.stringify(result));
      assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
    }
    const answer = answerFrom(fit.structuredContent, refit.structuredContent, egger.structuredContent);
    const report = scoreWithCli(JSON.stringify(answer, null, 2));
    assert.equal(`${report.passed}/${report.total}`, '13/13', JSON.stringify(report.fields.filter((f) => !f.pass)));

    // The page's own tool errors come back as results; a tool the page lacks is an error.
    const bad = await client.callTool({ name: 'refit_excluding', arguments: { exclude: ['s99'] } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /s99/);
    await assert.rejects(
      client.callTool({ name: 'no_such_tool', arguments: {} }),
      (err) => err instanceof McpError && err.code === ErrorCode.InvalidParams && /no_such_tool/.test(err.message),
    );

    // The browser closes when the client disconnects; the bridge exits by itself (the SDK
    // would signal it after 2 s).
    const started = Date.now();
    await client.close();
    closed = true;
    assert.ok(Date.now() - started < 2000, `the bridge exits when its client disconnects:\n${log}`);
    assert.match(log, /browser closed/);
  } finally {
    if (!closed) await client.close();
  }
});

test('the bridge refuses a URL that is not http(s), on stderr, with nothing on stdout', async () => {
  const { spawnSync } = await import('node:child_process');
  const run = spawnSync(process.execPath, [BRIDGE, '--url', 'file:///etc/passwd'], { encoding: 'utf8' });
  assert.equal(run.status, 2);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /not an http\(s\) URL/);
});
