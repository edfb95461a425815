// The bare page the page benchmark compares ours with (issue 11): the same
// tool definitions registered with native WebMCP, no-op tools, nothing else.
// It is generated at run time from www/generated/tools.json, the file our
// page registers from, so the two always register the same definitions; no
// copy of them is committed. page.mjs serves it from memory at /bare/.
//
// The definitions are written into bare.js itself: the bare page needs one
// request for its HTML and one for its script, the least a page with a
// module script can do. Like ours it registers every tool at once, then sets
// `html[data-tools-registered]` and `performance.mark('tools-registered')`.

/** `{'/bare/': {type, body}, '/bare/index.html': …, '/bare/bare.js': …}` for the definitions' JSON text. */
export function barePage(definitionsJson) {
  const definitions = JSON.parse(definitionsJson);
  if (!Array.isArray(definitions) || definitions.length === 0) {
    throw new Error('www/generated/tools.json holds no tool definitions (run cargo xtask build)');
  }
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Bare WebMCP page</title>
<script type="module" src="bare.js"></script>
</head>
<body></body>
</html>
`;
  const js = `const definitions = ${JSON.stringify(definitions)};
const api = document.modelContext;
const execute = () => ({ content: [] });
await Promise.all(
  definitions.map((def) =>
    api.registerTool({
      name: def.name,
      title: def.title,
      description: def.description,
      inputSchema: def.inputSchema,
      outputSchema: def.outputSchema,
      annotations: def.annotations,
      execute,
    }),
  ),
);
document.documentElement.dataset.toolsRegistered = 'true';
performance.mark('tools-registered');
`;
  const page = { type: 'text/html; charset=utf-8', body: Buffer.from(html) };
  return new Map([
    ['/bare/', page],
    ['/bare/index.html', page],
    ['/bare/bare.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(js) }],
  ]);
}
