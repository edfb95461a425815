// Registers the Rust tool definitions as WebMCP tools. Nothing here names,
// describes or validates a tool: the definitions are www/generated/tools.json,
// written by `cargo xtask codegen` from the Rust registry, and every call goes
// to the engine's Session in wasm, which validates against the schema and
// says what the agent receives.

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * What a tool's execute gives the fallback below: the response's JSON text,
 * which its executeTool answers as it is (a result of megabytes is not parsed
 * into objects and turned back into text on the page's thread).
 */
class ResponseText {
  constructor(text) {
    this.text = text;
  }
}

/**
 * A small stand-in for the WebMCP API where the browser has none, so that
 * MCP-B-style bridges and scripts still discover and run the tools. It keeps
 * the native semantics: registerTool(tool, {signal}) returns a promise and
 * rejects duplicates and bad names, aborting the signal removes the tool,
 * getTools() resolves to descriptions like Chromium's, and
 * executeTool(tool or name, input, {signal}) accepts an input object or a
 * JSON string (passed on as text, for Rust to parse) and resolves to the JSON
 * string of what execute returned.
 */
function installFallback() {
  const tools = new Map();
  const describe = (t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema ?? { type: 'object' },
    outputSchema: t.outputSchema,
    annotations: t.annotations,
    origin: location.origin,
  });
  const modelContext = {
    registerTool(tool, { signal } = {}) {
      if (!tool || typeof tool.name !== 'string' || !NAME.test(tool.name)) {
        return Promise.reject(new TypeError(`invalid tool name: ${tool && tool.name}`));
      }
      if (typeof tool.execute !== 'function') {
        return Promise.reject(new TypeError(`tool ${tool.name} has no execute function`));
      }
      if (tools.has(tool.name)) {
        return Promise.reject(new DOMException(`duplicate tool name: ${tool.name}`, 'InvalidStateError'));
      }
      if (signal?.aborted) return Promise.resolve();
      tools.set(tool.name, tool);
      signal?.addEventListener('abort', () => tools.delete(tool.name), { once: true });
      return Promise.resolve();
    },
    getTools() {
      return Promise.resolve([...tools.values()].map(describe));
    },
    async executeTool(nameOrTool, input, { signal } = {}) {
      const name = typeof nameOrTool === 'string' ? nameOrTool : nameOrTool?.name;
      const tool = tools.get(name);
      if (!tool) throw new DOMException(`no tool named ${name}`, 'NotFoundError');
      // A JSON string goes to the tool as it is: Rust parses it (strictly)
      // and answers invalid_json for text that is not JSON.
      const out = await tool.execute(input ?? {}, { signal });
      return out instanceof ResponseText ? out.text : JSON.stringify(out);
    },
  };
  Object.defineProperty(document, 'modelContext', { value: modelContext, configurable: true });
  if (!('modelContext' in navigator)) {
    Object.defineProperty(navigator, 'modelContext', { value: modelContext, configurable: true });
  }
  return modelContext;
}

/**
 * Registers every definition at once, without waiting for the engine.
 * `run(name, argsJson, signal)` performs the call (awaiting the engine) and
 * resolves to the engine's run report, whose `response` is what the agent gets.
 * Resolves to `{ mode, reason, registered: [names], failed: [{name, reason}] }`.
 */
export async function registerTools(definitions, run) {
  let api;
  let mode;
  let reason;
  if (document.modelContext && typeof document.modelContext.registerTool === 'function') {
    api = document.modelContext;
    mode = 'native';
    reason = 'This browser provides WebMCP (document.modelContext); the tools are registered with it.';
  } else if (navigator.modelContext && typeof navigator.modelContext.registerTool === 'function') {
    api = navigator.modelContext;
    mode = 'native';
    reason = 'This browser provides WebMCP as navigator.modelContext only; the tools are registered with it.';
  } else {
    try {
      api = installFallback();
      mode = 'fallback';
      reason =
        'This browser has no WebMCP API, so the page installed a small fallback at ' +
        'document.modelContext (registerTool, getTools, executeTool) for MCP-B-style bridges.';
    } catch (err) {
      return { mode: 'none', reason: `No WebMCP API, and the fallback could not be installed: ${err.message}`, registered: [], failed: [] };
    }
  }

  const controller = new AbortController();
  const registered = [];
  const failed = [];
  // All at once, in definition order: one registration need not wait for the
  // previous one's round trip through the browser.
  const outcomes = await Promise.allSettled(
    definitions.map((def) => {
      const tool = {
        name: def.name,
        title: def.title,
        description: def.description,
        inputSchema: def.inputSchema,
        outputSchema: def.outputSchema,
        annotations: def.annotations,
        execute: (input, options) => execute(def.name, input, run, options?.signal, mode === 'fallback'),
      };
      try {
        return api.registerTool(tool, { signal: controller.signal });
      } catch (err) {
        return Promise.reject(err);
      }
    }),
  );
  outcomes.forEach((outcome, i) => {
    const { name } = definitions[i];
    if (outcome.status === 'fulfilled') registered.push(name);
    else failed.push({ name, reason: `${outcome.reason?.name}: ${outcome.reason?.message}` });
  });
  if (registered.length === 0 && mode !== 'none') {
    mode = 'none';
    reason = `${reason} Every registration failed.`;
  }
  return { mode, reason, registered, failed, controller };
}

/** A tool's execute: never throws (a throw reaches the agent as a bare UnknownError). */
async function execute(name, input, run, signal, asText) {
  try {
    // The input goes to the engine as given: its worker turns it into text.
    const report = await run(name, input ?? {}, signal);
    // The browser's WebMCP takes the response as an object; the fallback answers its text.
    return asText ? new ResponseText(report.responseText) : JSON.parse(report.responseText);
  } catch (err) {
    return { isError: true, content: [{ type: 'text', text: `internal error in tool ${name}: ${err.message}` }] };
  }
}
