// How the bench's scripts serve the page: the headers of `cargo xtask serve`
// and the content types, in one place (crates/bench/tests/served_like_xtask.rs
// checks the headers against crates/xtask/src/serve.rs).

// crates/xtask/src/serve.rs `security_headers`, on every response, refusals included.
export const HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};
export const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
  '.json': 'application/json',
};
