// `exemplar mcp` as an MCP client reaches it, with the official TypeScript SDK's client:
// on stdio and over Streamable HTTP, the shared rules as the server's instructions, the same
// tools as `exemplar tools`, the reference answer's numbers, errors as results, the dataset's
// exact bytes, the methods text, the output schemas and the common prompt byte for byte; over
// HTTP, the DNS-rebinding defence.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { answerFrom, exemplar, exemplarCommand, launch, openPage, reference, scoreWithCli } from './helpers.mjs';

const definitions = () => JSON.parse(exemplar('tools'));
const DATASET_SHA256 = JSON.parse(exemplar('call', 'get_dataset')).sha256;

async function connect(transport) {
  const client = new Client({ name: 'exemplar-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** `exemplar mcp --http 127.0.0.1:0`, and the URL it prints on stderr. */
async function httpServer(...extra) {
  const { command, args } = exemplarCommand('mcp', '--http', '127.0.0.1:0', ...extra);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const url = await new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`no URL on stderr within 60 s: ${stderr}`)), 60000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const found = stderr.match(/Streamable HTTP at (http:\/\/\S+\/mcp)/);
      if (found) {
        clearTimeout(timer);
        resolve(new URL(found[1]));
      }
    });
    child.on('exit', (code) => reject(new Error(`exemplar mcp --http exited (${code}): ${stderr}`)));
  });
  return { url, child, stdout: () => stdout };
}

/** The prompt as the served page shows it (its own source, not the MCP server). */
async function pagePrompt() {
  const browser = await launch({ webmcp: false });
  try {
    const { page } = await openPage(browser);
    return await page.textContent('#prompt');
  } finally {
    await browser.close();
  }
}

/** Everything both transports must answer identically. */
async function checkServer(client, prompt) {
  // tools/list: exactly the registry's definitions. MCP's annotations carry readOnlyHint;
  // WebMCP's untrustedContentHint, which MCP's annotation type lacks, is in _meta.
  const { tools } = await client.listTools();
  const defined = definitions();
  assert.deepEqual(tools.map((t) => t.name), defined.map((t) => t.name));
  for (const [i, tool] of tools.entries()) {
    const def = defined[i];
    for (const key of ['name', 'title', 'description', 'inputSchema', 'outputSchema']) {
      assert.deepEqual(tool[key], def[key], `${key} of ${def.name}`);
    }
    for (const [hint, value] of Object.entries(def.annotations)) {
      assert.equal(tool.annotations?.[hint] ?? tool._meta?.[hint], value, `${hint} of ${def.name}`);
    }
  }

  // fit, refit without s04 and Egger: the reference answer's numbers exactly, 13/13.
  const fit = await client.callTool({ name: 'fit_random_effects', arguments: {} });
  const refit = await client.callTool({ name: 'refit_excluding', arguments: { exclude: ['s04'] } });
  const egger = await client.callTool({ name: 'egger_test', arguments: {} });
  for (const result of [fit, refit, egger]) {
    assert.ok(!result.isError, JSON.stringify(result));
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  }
  // Beside the JSON, the printed summary as metafor prints it, after its headline.
  assert.equal(fit.content.length, 2);
  assert.match(fit.content[1].text, /^SMD 0\.08 \[-0\.02, 0\.18\] \(95% CI; random-effects REML, k = 19\)\n/);
  assert.match(fit.content[1].text, /\nQ\(df = 18\) = 35\.8295, p-val = 0\.0074\n/);
  assert.match(egger.content[1].text, /Test for Funnel Plot Asymmetry: t = 2\.0380, df = 17, p = 0\.0574/);
  const answer = answerFrom(fit.structuredContent, refit.structuredContent, egger.structuredContent);
  assert.deepEqual(answer, reference());
  const report = scoreWithCli(JSON.stringify(answer));
  assert.equal(`${report.passed}/${report.total}`, '13/13');

  // A tool error is a result with isError and a message naming the bad argument.
  const unknownId = await client.callTool({ name: 'refit_excluding', arguments: { exclude: ['s99'] } });
  assert.equal(unknownId.isError, true);
  assert.match(unknownId.content[0].text, /^unknown_record: .*s99/);
  const badType = await client.callTool({ name: 'fit_random_effects', arguments: { level: 'high' } });
  assert.equal(badType.isError, true);
  assert.match(badType.content[0].text, /^wrong_type: .*level/);
  const badEnum = await client.callTool({ name: 'egger_test', arguments: { variant: 7 } });
  assert.equal(badEnum.isError, true);
  assert.match(badEnum.content[0].text, /variant/);
  // An unknown tool is a protocol error naming it.
  await assert.rejects(
    client.callTool({ name: 'no_such_tool', arguments: {} }),
    (err) => err instanceof McpError && err.code === ErrorCode.InvalidParams && /no_such_tool/.test(err.message),
  );

  // Resources: the dataset's exact bytes (their SHA-256 is the dataset hash) and METHODS.md.
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.mimeType), ['text/csv', 'text/markdown', 'application/json']);
  const csv = (await client.readResource({ uri: resources[0].uri })).contents[0];
  assert.equal(csv.mimeType, 'text/csv');
  assert.equal(createHash('sha256').update(csv.text, 'utf8').digest('hex'), DATASET_SHA256);
  assert.deepEqual(Buffer.from(csv.text, 'utf8'), readFileSync('crates/exemplar/data/dat.raudenbush1985.csv'));
  assert.equal(resources[0].size, Buffer.byteLength(csv.text, 'utf8'));
  const methods = (await client.readResource({ uri: resources[1].uri })).contents[0];
  assert.equal(methods.mimeType, 'text/markdown');
  assert.equal(methods.text, readFileSync('docs/METHODS.md', 'utf8'));
  // The output schemas, which tools/list leaves out: one per tool, by name.
  const schemas = JSON.parse((await client.readResource({ uri: resources[2].uri })).contents[0].text);
  assert.deepEqual(Object.keys(schemas), defined.map((t) => t.name));
  await assert.rejects(client.readResource({ uri: 'exemplar://nothing' }), /exemplar:\/\/nothing/);

  // The rules every tool shares arrive once, as the initialize result's instructions (the
  // descriptions rely on them): the data source and its handles, the shared arguments, the
  // methods resource.
  const instructions = client.getInstructions() ?? '';
  assert.ok(
    ['records', 'data_id', 'load_data', 'level', 'knha', 'natural', resources[1].uri].every((word) => instructions.includes(word)),
    `instructions: ${instructions.slice(0, 200)}`,
  );

  // The prompt: the common prompt, byte for byte.
  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name), ['common_prompt']);
  const got = await client.getPrompt({ name: 'common_prompt' });
  assert.equal(got.messages.length, 1);
  assert.equal(got.messages[0].role, 'user');
  assert.equal(got.messages[0].content.text, prompt);
}

test('exemplar mcp on stdio: the tools, resources and prompt, through the official SDK client', async () => {
  const prompt = await pagePrompt();
  const { command, args } = exemplarCommand('mcp');
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  const client = await connect(transport);
  try {
    assert.equal(client.getServerVersion().name, 'exemplar');
    await checkServer(client, prompt);
  } finally {
    const started = Date.now();
    await client.close();
    // It exits by itself when the client closes stdin (the SDK would signal it after 2 s).
    assert.ok(Date.now() - started < 2000, 'exemplar mcp exits when its client disconnects');
  }
});

test('exemplar mcp --http: the same over Streamable HTTP, loopback only, foreign origins refused', async () => {
  const prompt = await pagePrompt();
  const { url, child, stdout } = await httpServer('--allow-origin', 'https://app.example');
  try {
    const client = await connect(new StreamableHTTPClientTransport(url));
    try {
      await checkServer(client, prompt);
    } finally {
      await client.close();
    }

    // The DNS-rebinding defence, on the initialize request a browser page would send.
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
    });
    const post = (headers) => rawRequest(url, headers, initialize);
    const foreign = await post({ origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.match(foreign.body, /Origin/);
    assert.equal((await post({ origin: url.origin })).status, 200, 'its own origin');
    assert.equal((await post({ origin: 'https://app.example' })).status, 200, 'an --allow-origin origin');
    assert.equal((await post({ origin: 'https://app.example:8443' })).status, 403, 'another port of it');
    assert.equal((await post({})).status, 200, 'no Origin: not a browser');

    // A non-loopback Host (a rebound DNS name) is refused before anything runs.
    const rebound = await post({ host: `evil.example:${url.port}` });
    assert.equal(rebound.status, 403);
    assert.match(rebound.body, /Host/);
    assert.equal((await post({ host: `localhost:${url.port}` })).status, 200);

    assert.equal(stdout(), '', 'the HTTP server writes nothing on stdout');
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const started = Date.now();
    child.kill('SIGINT');
    await exited;
    assert.ok(Date.now() - started < 5000, 'exemplar mcp --http stops on Ctrl-C');
  }
});

// Issue 25 item 6: the 16 MiB of arguments every tool description promises reach the
// registry over both transports, and a message over the 17 MiB limit is a JSON-RPC error
// the SDK client receives at once (stdio used to drop the line, HTTP refused 4 MiB).
const MiB = 1024 * 1024;
async function checkSizes(client, isRefusal) {
  // 16 MiB minus a little of JSON text: the registry reads it (and names the unknown property).
  const pad = 'x'.repeat(16 * MiB - 100);
  const big = await client.callTool({ name: 'refit_excluding', arguments: { exclude: ['s04'], pad } });
  assert.equal(big.isError, true);
  assert.match(big.content[0].text, /pad/);
  const started = Date.now();
  await assert.rejects(
    client.callTool({ name: 'refit_excluding', arguments: { exclude: ['s04'], pad: 'x'.repeat(17 * MiB) } }),
    isRefusal,
  );
  assert.ok(Date.now() - started < 20000, 'answered, not timed out');
  // The session goes on.
  assert.equal((await client.callTool({ name: 'egger_test', arguments: {} })).isError, false);
}

test('exemplar mcp: 16 MiB of arguments reach the tools and more is a JSON-RPC error, on both transports', async () => {
  const tooLarge = /at most 17825792 bytes are read/;
  const { command, args } = exemplarCommand('mcp');
  const stdio = await connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
  try {
    await checkSizes(stdio, (err) => err instanceof McpError && err.code === ErrorCode.InvalidRequest && tooLarge.test(err.message));
  } finally {
    await stdio.close();
  }
  const { url, child } = await httpServer();
  try {
    const http = await connect(new StreamableHTTPClientTransport(url));
    try {
      await checkSizes(http, (err) => err.code === 413 && tooLarge.test(err.message));
    } finally {
      await http.close();
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }
});

/**
 * A POST with chosen headers, Host included (fetch forbids setting Host), through
 * node:http. Resolves to the status and the first part of the body.
 */
async function rawRequest(url, headers, body) {
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        agent: false,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          text += chunk;
          // An accepted initialize opens an event stream: its first event is enough.
          if (response.statusCode === 200) response.destroy();
        });
        response.on('close', () => resolve({ status: response.statusCode, body: text }));
        response.on('error', () => resolve({ status: response.statusCode, body: text }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

test('exemplar mcp: records loaded once are named by their handle in later calls, in that session only', async () => {
  const records = Array.from({ length: 40 }, (_, i) => ({ id: `r${i}`, yi: Math.sin(i) / 3, vi: 0.01 + (i % 9) / 60, dose: i % 5 }));
  const { command, args } = exemplarCommand('mcp');
  const client = await connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
  const other = await connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
  try {
    const loaded = await client.callTool({ name: 'load_data', arguments: { records } });
    assert.ok(!loaded.isError, JSON.stringify(loaded));
    assert.equal(loaded.structuredContent.data_id, 'd1');
    assert.equal(loaded.structuredContent.k, 40);
    assert.deepEqual(loaded.structuredContent.columns, ['dose']);
    for (const [name, extra] of [
      ['fit_random_effects', { method: 'DL', test: 'knha' }],
      ['meta_regression', { mods: ['dose'] }],
      ['leave_one_out', { exclude: ['r3'], level: 0.9 }],
    ]) {
      const byHandle = await client.callTool({ name, arguments: { ...extra, data_id: 'd1' } });
      const inline = await client.callTool({ name, arguments: { ...extra, records } });
      assert.ok(!byHandle.isError, JSON.stringify(byHandle));
      // The result names the handle it read; the rest is the inline call's.
      assert.equal(byHandle.structuredContent.dataset.data_id, 'd1', name);
      delete byHandle.structuredContent.dataset.data_id;
      assert.deepEqual(byHandle.structuredContent, inline.structuredContent, name);
      assert.equal(byHandle.content[0].text.replace(',"data_id":"d1"', ''), inline.content[0].text, name);
    }
    // Another session (another connection) has no such handle; an unknown one is named.
    const elsewhere = await other.callTool({ name: 'fit_random_effects', arguments: { data_id: 'd1' } });
    assert.equal(elsewhere.isError, true);
    assert.match(elsewhere.content[0].text, /^unknown_data: there is no data handle "d1"/);
    const unknown = await client.callTool({ name: 'egger_test', arguments: { data_id: 'd9' } });
    assert.match(unknown.content[0].text, /^unknown_data: there is no data handle "d9".*this session holds d1/);
  } finally {
    await client.close();
    await other.close();
  }
});

test('exemplar mcp: a researcher\u2019s rows as CSV gives them (numbers as text, a blank) analysed with a formula, a subset and btt, as the command line does', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  // Numbers as text, as a CSV row gives them; r7's dose is blank; group is coded 1, 2, 3.
  const records = Array.from({ length: 24 }, (_, i) => ({
    id: `r${i}`,
    yi: Math.sin(i) / 3,
    vi: 0.01 + (i % 9) / 60,
    dose: i === 7 ? '' : String(i % 6),
    group: String((i % 3) + 1),
    site: i % 4 === 0 ? 'north' : 'south',
  }));
  const args = { mods: '~ dose + factor(group)', btt: 'group', subset: { column: 'site', in: ['south'] } };
  const { command, args: argv } = exemplarCommand('mcp');
  const client = await connect(new StdioClientTransport({ command, args: argv, stderr: 'pipe' }));
  try {
    const loaded = await client.callTool({ name: 'load_data', arguments: { records } });
    assert.ok(!loaded.isError, JSON.stringify(loaded));
    const fit = await client.callTool({ name: 'meta_regression', arguments: { ...args, data_id: 'd1' } });
    assert.ok(!fit.isError, JSON.stringify(fit));
    const r = fit.structuredContent;
    assert.deepEqual(r.coefficients.map((c) => c.name), ['intercept', 'dose', 'factor(group)2', 'factor(group)3']);
    assert.deepEqual(r.omitted, [{ id: 'r7', reason: 'dose is blank' }]);
    assert.equal(r.k, 17);
    assert.deepEqual(r.btt, [3, 4]);
    assert.equal(r.dataset.subset, 'site in "south": 18 of 24 records');
    // The command line, given the same records inline, answers the same numbers.
    const dir = mkdtempSync(join(tmpdir(), 'mcp-as-meant-'));
    writeFileSync(join(dir, 'records.json'), JSON.stringify(records));
    const cli = JSON.parse(exemplar('call', 'meta_regression', JSON.stringify(args), '--records', join(dir, 'records.json')));
    assert.deepEqual(r.coefficients, cli.coefficients);
    assert.equal(r.qm, cli.qm);
    // Naming no data once data are loaded is refused, not the benchmark's dataset.
    const unnamed = await client.callTool({ name: 'meta_regression', arguments: args });
    assert.match(unnamed.content[0].text, /^data_not_named: /);
  } finally {
    await client.close();
  }
});
