#!/usr/bin/env node
// The WebMCP bridge: an MCP stdio server that is a WebMCP browser for an agent without one.
//
//   node crates/xtask/bridge/webmcp-bridge.mjs --url URL      (or `cargo xtask bridge`)
//
// It opens URL in headless Chromium with native WebMCP, lists the tools the page registered
// (`document.modelContext.getTools()`) as its MCP tools, and runs each tools/call through
// the page's own `executeTool`, so the tool runs in the page (and whatever the page records
// about its runs, it records). It knows nothing of any particular page's tools.
//
// stdout carries only the protocol; every log line goes to stderr. Its input is read as
// strictly as `exemplar mcp` reads its own, and every request is answered
// (strict-stdio.mjs). When the client disconnects (stdin ends) or the process is told to
// stop, the browser closes.
//
// A call is stopped as the page stops its own: each runs in the page with an AbortSignal
// (`executeTool(tool, input, {signal})`), aborted when the client cancels it
// (`notifications/cancelled`) or when it passes the time limit (`--time-limit`, 60 s as
// `exemplar mcp`; it is then answered `timed_out`). The page ends the computation (its
// worker) and runs the calls behind it, so a call nobody waits for never holds the next.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  ToolAnnotationsSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { launchChromium } from './chromium.mjs';
import { StrictStdioServerTransport } from './strict-stdio.mjs';

// A stray console.log (ours or a library's) would corrupt the protocol on stdout.
console.log = console.error;
console.info = console.error;
const log = (message) => process.stderr.write(`webmcp-bridge: ${message}\n`);

// How long the page has to register its first tool before tools/list answers anyway.
const FIRST_TOOL_WAIT_MS = 15000;
// Every tool call is answered within this time, as `exemplar mcp` answers (CALL_TIME_LIMIT).
const DEFAULT_TIME_LIMIT_S = 60;
const USAGE =
  'usage: webmcp-bridge.mjs --url URL [--time-limit SECONDS]   (an http(s) page that registers WebMCP tools; ' +
  `a tool call not finished within the time limit, ${DEFAULT_TIME_LIMIT_S} s by default, is stopped and answered timed_out)`;

function parseArgs(argv) {
  let url = null;
  let limit = String(DEFAULT_TIME_LIMIT_S);
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--url' && i + 1 < argv.length) url = argv[++i];
    else if (argv[i].startsWith('--url=')) url = argv[i].slice('--url='.length);
    else if (argv[i] === '--time-limit' && i + 1 < argv.length) limit = argv[++i];
    else if (argv[i].startsWith('--time-limit=')) limit = argv[i].slice('--time-limit='.length);
    else throw new Error(`unexpected argument ${JSON.stringify(argv[i])}\n${USAGE}`);
  }
  if (url === null) throw new Error(`--url is missing\n${USAGE}`);
  const timeLimitS = Number(limit);
  if (!(/^[0-9.]+$/.test(limit) && timeLimitS > 0 && timeLimitS <= 3600)) {
    throw new Error(`--time-limit ${JSON.stringify(limit)} is not a number of seconds from 0 to 3600 (exclusive of 0)\n${USAGE}`);
  }
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${JSON.stringify(url)} is not a URL\n${USAGE}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`${JSON.stringify(url)} is not an http(s) URL (WebMCP needs a page served over http(s))`);
  }
  return { url: parsed.href, timeLimitS };
}

/** Opens the page and waits until it has registered at least one tool (or the wait ends). */
async function openPage(url) {
  const browser = await launchChromium({ webmcp: true });
  const page = await browser.newPage();
  page.on('pageerror', (err) => log(`page error: ${err.message}`));
  await page.goto(url, { waitUntil: 'load' });
  const hasWebMcp = await page.evaluate(() => typeof document.modelContext?.getTools === 'function');
  if (!hasWebMcp) {
    await browser.close();
    throw new Error('this Chromium has no document.modelContext: it lacks native WebMCP');
  }
  try {
    await page.waitForFunction(async () => (await document.modelContext.getTools()).length > 0, null, {
      timeout: FIRST_TOOL_WAIT_MS,
      polling: 100,
    });
  } catch {
    log(`${url} registered no WebMCP tool within ${FIRST_TOOL_WAIT_MS / 1000} s; tools/list is empty until it does`);
  }
  return { browser, page };
}

// The annotation names MCP defines, from the SDK's own schema: a WebMCP hint that is not
// one of them (untrustedContentHint) travels in the tool's _meta under its own name.
const MCP_ANNOTATIONS = new Set(Object.keys(ToolAnnotationsSchema.shape));

/** A WebMCP tool description as an MCP tool. */
function mcpTool(tool) {
  const schema = typeof tool.inputSchema === 'string' ? JSON.parse(tool.inputSchema) : tool.inputSchema;
  const out = {
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: schema && typeof schema === 'object' ? schema : { type: 'object' },
  };
  if (tool.title) out.title = tool.title;
  if (tool.outputSchema) out.outputSchema = tool.outputSchema;
  const annotations = {};
  const meta = {};
  for (const [key, value] of Object.entries(tool.annotations ?? {})) {
    if (MCP_ANNOTATIONS.has(key)) annotations[key] = value;
    else meta[key] = value;
  }
  if (Object.keys(annotations).length > 0) out.annotations = annotations;
  if (Object.keys(meta).length > 0) out._meta = meta;
  return out;
}

/** The page's tools, as it lists them now. */
function pageTools(page) {
  return page.evaluate(async () =>
    (await document.modelContext.getTools()).map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: t.annotations ? { ...t.annotations } : undefined,
    })),
  );
}

/**
 * Runs tool `name` in the page through `executeTool`, which takes the tool object from
 * getTools() (not its name) and resolves to the JSON text of what the tool returned. The
 * call's AbortController is kept in the page under `call` until it ends, for
 * [`abortInPage`].
 */
function executeInPage(page, name, input, call) {
  return page.evaluate(
    async ([toolName, toolInput, callId]) => {
      // Registered before the first await, so that an abort arriving meanwhile finds it.
      const calls = (globalThis.__webmcpBridgeCalls ??= new Map());
      const controller = calls.get(callId) ?? new AbortController();
      calls.set(callId, controller);
      try {
        const tools = await document.modelContext.getTools();
        const tool = tools.find((t) => t.name === toolName);
        if (!tool) return { missing: tools.map((t) => t.name) };
        return { text: await document.modelContext.executeTool(tool, toolInput, { signal: controller.signal }) };
      } catch (err) {
        return { thrown: `${err?.name ?? 'Error'}: ${err?.message ?? String(err)}` };
      } finally {
        calls.delete(callId);
      }
    },
    [name, input, call],
  );
}

/**
 * Aborts the signal of the page's call `call`; a call not started yet (its arguments still
 * on their way to the page) finds its signal aborted when it starts.
 */
function abortInPage(page, call) {
  return page
    .evaluate((callId) => {
      const calls = (globalThis.__webmcpBridgeCalls ??= new Map());
      if (!calls.has(callId)) calls.set(callId, new AbortController());
      calls.get(callId).abort();
      // A call that never starts leaves no entry behind for long.
      setTimeout(() => calls.delete(callId), 600000);
    }, call)
    .catch((err) => log(`cannot stop call ${call} in the page: ${err.message}`));
}

/** The answer to a call past the time limit, in `exemplar mcp`'s words. */
function timedOut(name, limitS) {
  const text =
    `timed_out: the call of ${name} did not finish within ${limitS} s, this bridge's limit for one tool call, ` +
    'and has no result; a smaller call (fewer records, fewer moderators or steps) may finish in time';
  return { content: [{ type: 'text', text }], isError: true };
}

/** What the page's tool returned, as an MCP tools/call result. */
function callResult(name, outcome) {
  if (outcome.thrown !== undefined) {
    return { content: [{ type: 'text', text: `the page's tool ${name} failed: ${outcome.thrown}` }], isError: true };
  }
  if (outcome.text === null || outcome.text === undefined) {
    return { content: [{ type: 'text', text: `the page navigated away before ${name} returned` }], isError: true };
  }
  let value;
  try {
    value = JSON.parse(outcome.text);
  } catch {
    return { content: [{ type: 'text', text: String(outcome.text) }] };
  }
  // A tool that returns an MCP-shaped result ({content: [...], structuredContent, isError})
  // is passed through; any other value becomes its JSON text (and structured content when
  // it is an object).
  if (value && typeof value === 'object' && Array.isArray(value.content)) {
    const result = { content: value.content };
    if (value.structuredContent !== undefined) result.structuredContent = value.structuredContent;
    if (value.isError) result.isError = true;
    return result;
  }
  const result = { content: [{ type: 'text', text: outcome.text }] };
  if (value && typeof value === 'object' && !Array.isArray(value)) result.structuredContent = value;
  return result;
}

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    log(err.message);
    process.exit(2);
  }

  let opened = null;
  let closing = false;
  const shutdown = async (why, code = 0) => {
    if (closing) return;
    closing = true;
    log(`${why}; closing the browser`);
    try {
      if (opened) await (await opened).browser.close();
    } catch {
      // The browser is already gone.
    }
    log('browser closed');
    process.exit(code);
  };

  opened = openPage(options.url).catch((err) => {
    log(`cannot open ${options.url}: ${err.message}`);
    process.exit(1);
  });

  const server = new Server({ name: 'webmcp-bridge', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const { page } = await opened;
    return { tools: (await pageTools(page)).map(mcpTool) };
  });
  let calls = 0;
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { page } = await opened;
    const { name, arguments: input } = request.params;
    const call = ++calls;
    // The call ends at the first of: the page's answer, the client's cancellation (whose
    // answer the SDK does not send), the time limit. The last two stop it in the page.
    let timer;
    let onCancel;
    const stopped = new Promise((resolve) => {
      timer = setTimeout(() => resolve('timed_out'), options.timeLimitS * 1000);
      onCancel = () => resolve('cancelled');
      if (extra.signal.aborted) onCancel();
      else extra.signal.addEventListener('abort', onCancel, { once: true });
    });
    const running = executeInPage(page, name, input ?? {}, call);
    const outcome = await Promise.race([running, stopped]);
    clearTimeout(timer);
    extra.signal.removeEventListener('abort', onCancel);
    if (outcome === 'timed_out' || outcome === 'cancelled') {
      // The page's own run ends (its worker is replaced) and its queue moves on; what it
      // answers is read by no one.
      running.catch(() => {});
      await abortInPage(page, call);
      if (outcome === 'timed_out') return timedOut(name, options.timeLimitS);
      return { content: [{ type: 'text', text: `cancelled: the call of ${name} was cancelled before it finished` }], isError: true };
    }
    if (outcome.missing) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool ${JSON.stringify(name)}; the page's tools are ${outcome.missing.join(', ') || '(none)'}`,
      );
    }
    return callResult(name, outcome);
  });

  const transport = new StrictStdioServerTransport();
  transport.onclose = () => shutdown('the client disconnected');
  process.stdin.on('end', () => shutdown('the client closed stdin'));
  process.on('SIGINT', () => shutdown('interrupted'));
  process.on('SIGTERM', () => shutdown('terminated'));
  await server.connect(transport);
  const { browser } = await opened;
  browser.on('disconnected', () => {
    if (!closing) shutdown('the browser exited', 1);
  });
  log(`serving the WebMCP tools of ${options.url} over MCP on stdio`);
}

main().catch((err) => {
  log(err.stack ?? String(err));
  process.exit(1);
});
