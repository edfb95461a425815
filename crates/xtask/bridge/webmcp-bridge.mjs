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
const USAGE = 'usage: webmcp-bridge.mjs --url URL   (an http(s) page that registers WebMCP tools)';

function parseArgs(argv) {
  let url = null;
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--url' && i + 1 < argv.length) url = argv[++i];
    else if (argv[i].startsWith('--url=')) url = argv[i].slice('--url='.length);
    else throw new Error(`unexpected argument ${JSON.stringify(argv[i])}\n${USAGE}`);
  }
  if (url === null) throw new Error(`--url is missing\n${USAGE}`);
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${JSON.stringify(url)} is not a URL\n${USAGE}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`${JSON.stringify(url)} is not an http(s) URL (WebMCP needs a page served over http(s))`);
  }
  return { url: parsed.href };
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
 * getTools() (not its name) and resolves to the JSON text of what the tool returned.
 */
function executeInPage(page, name, input) {
  return page.evaluate(
    async ([toolName, toolInput]) => {
      const tools = await document.modelContext.getTools();
      const tool = tools.find((t) => t.name === toolName);
      if (!tool) return { missing: tools.map((t) => t.name) };
      try {
        return { text: await document.modelContext.executeTool(tool, toolInput) };
      } catch (err) {
        return { thrown: `${err?.name ?? 'Error'}: ${err?.message ?? String(err)}` };
      }
    },
    [name, input],
  );
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
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { page } = await opened;
    const { name, arguments: input } = request.params;
    const outcome = await executeInPage(page, name, input ?? {});
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
