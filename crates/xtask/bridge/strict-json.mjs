// JSON read as strictly as `exemplar mcp` reads it (crates/exemplar/src/strict_json.rs):
// one value, a repeated key noticed (keys compared after unescaping), at most 127 arrays or
// objects inside one another, and no `\uXXXX` escape of half a UTF-16 surrogate pair. Where
// Rust's parser stops at a repeated key, this one reads on (the last value wins, as
// JSON.parse's) and reports the first repetition with where it is, so that the bridge can
// tell a repetition in a tool call's arguments from one in the rest of the message.
//
// Positions are as serde_json gives them: a 1-based line, and the 1-based column of the
// byte (UTF-8) the parser stopped at; a repeated key's is its closing quote.

/** Arrays and objects nested deeper than this are refused (serde_json's recursion limit). */
export const MAX_DEPTH = 127;
/** A key longer than this is shortened in messages. */
const KEY_SHOWN_CHARS = 60;

/** Why a text is not one JSON value: `kind` is `syntax`, `deep` or `surrogate`. */
export class StrictJsonError extends Error {
  constructor(kind, message, offset) {
    super(message);
    this.kind = kind;
    this.offset = offset;
  }
}

/** The 1-based line and UTF-8 byte column of `offset` (a UTF-16 index) in `text`. */
export function position(text, offset) {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line += 1;
  return { line, column: Buffer.byteLength(text.slice(lineStart, offset + 1)) };
}

/** A key as JSON text, shortened when long (as strict_json.rs shows it). */
export function shownKey(key) {
  const chars = [...key];
  if (chars.length <= KEY_SHOWN_CHARS) return JSON.stringify(key);
  return `${JSON.stringify(chars.slice(0, KEY_SHOWN_CHARS).join(''))}\u2026 (a ${Buffer.byteLength(key)}-byte key)`;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const PLAIN = /[^"\\\u0000-\u001f]*/y;
const ESCAPES = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * Parses the first JSON value of `text` (after white space). Resolves to `{value, end,
 * duplicates, spans}`: `end` is the offset just past the value, `duplicates` every repeated
 * key as `{key, path, offset}` (`path` the keys leading to its object), `spans` the
 * `[start, end)` offsets of the values at the paths of `track` (each a key path, such as
 * `['params', 'arguments']`; the last value written there). Throws a StrictJsonError.
 */
export function parseFirst(text, track = []) {
  let at = 0;
  const duplicates = [];
  const spans = new Map();
  const path = [];
  const tracked = new Set(track.map((p) => p.join('\u0000')));
  const trackedDepth = Math.max(0, ...track.map((p) => p.length));

  const fail = (kind, message, offset = at) => {
    throw new StrictJsonError(kind, message, offset);
  };
  const space = () => {
    for (;;) {
      const c = text.charCodeAt(at);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) at += 1;
      else return;
    }
  };
  const hex4 = () => {
    const digits = text.slice(at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) fail('syntax', 'invalid escape');
    at += 4;
    return parseInt(digits, 16);
  };
  const string = () => {
    at += 1; // the opening quote
    let out = '';
    for (;;) {
      PLAIN.lastIndex = at;
      PLAIN.test(text);
      out += text.slice(at, PLAIN.lastIndex);
      at = PLAIN.lastIndex;
      const c = text[at];
      if (c === '"') {
        at += 1;
        return out;
      }
      if (c === undefined) fail('syntax', 'EOF while parsing a string');
      if (c !== '\\') fail('syntax', 'control character (\\u0000-\\u001F) found while parsing a string');
      const escapeAt = at;
      const kind = text[at + 1];
      at += 2;
      if (kind in ESCAPES) {
        out += ESCAPES[kind];
        continue;
      }
      if (kind !== 'u') fail('syntax', 'invalid escape', escapeAt);
      const unit = hex4();
      const lone = (high) =>
        fail(
          'surrogate',
          `lone surrogate ${text.slice(escapeAt, escapeAt + 6)} (${
            high
              ? 'a high surrogate not followed by a low surrogate \\uDC00-\\uDFFF'
              : 'a low surrogate not preceded by a high surrogate \\uD800-\\uDBFF'
          }: half of a UTF-16 pair, no character)`,
          escapeAt,
        );
      if (unit >= 0xdc00 && unit <= 0xdfff) lone(false);
      if (unit >= 0xd800 && unit <= 0xdbff) {
        if (text[at] !== '\\' || text[at + 1] !== 'u') lone(true);
        at += 2;
        const low = hex4();
        if (low < 0xdc00 || low > 0xdfff) lone(true);
        out += String.fromCharCode(unit, low);
        continue;
      }
      out += String.fromCharCode(unit);
    }
  };
  const value = (depth) => {
    space();
    const c = text[at];
    if (c === '{' || c === '[') {
      if (depth >= MAX_DEPTH) fail('deep', `arrays and objects are nested more than ${MAX_DEPTH} deep`);
      at += 1;
      return c === '{' ? object(depth + 1) : array(depth + 1);
    }
    if (c === '"') return string();
    if (text.startsWith('true', at)) return (at += 4), true;
    if (text.startsWith('false', at)) return (at += 5), false;
    if (text.startsWith('null', at)) return (at += 4), null;
    NUMBER.lastIndex = at;
    const number = NUMBER.exec(text);
    if (!number) fail('syntax', c === undefined ? 'EOF while parsing a value' : 'expected value');
    at = NUMBER.lastIndex;
    const parsed = Number(number[0]);
    if (!Number.isFinite(parsed)) fail('syntax', 'number out of range');
    return parsed;
  };
  const array = (depth) => {
    const out = [];
    space();
    if (text[at] === ']') return (at += 1), out;
    for (;;) {
      out.push(value(depth));
      space();
      const c = text[at];
      at += 1;
      if (c === ']') return out;
      if (c !== ',') fail('syntax', c === undefined ? 'EOF while parsing a list' : 'expected `,` or `]`', at - 1);
    }
  };
  const object = (depth) => {
    const out = {};
    const seen = new Set();
    space();
    if (text[at] === '}') return (at += 1), out;
    for (;;) {
      space();
      if (text[at] !== '"') fail('syntax', text[at] === undefined ? 'EOF while parsing an object' : 'key must be a string');
      const key = string();
      if (seen.has(key)) duplicates.push({ key, path: [...path], offset: at - 1 });
      seen.add(key);
      space();
      if (text[at] !== ':') fail('syntax', 'expected `:`');
      at += 1;
      path.push(key);
      space();
      const start = at;
      const item = value(depth);
      if (path.length <= trackedDepth && tracked.has(path.join('\u0000'))) spans.set(path.join('\u0000'), [start, at]);
      path.pop();
      // `__proto__` as an own property, as JSON.parse makes it.
      if (key === '__proto__') Object.defineProperty(out, key, { value: item, writable: true, enumerable: true, configurable: true });
      else out[key] = item;
      space();
      const c = text[at];
      at += 1;
      if (c === '}') return out;
      if (c !== ',') fail('syntax', c === undefined ? 'EOF while parsing an object' : 'expected `,` or `}`', at - 1);
    }
  };

  const parsed = value(0);
  return {
    value: parsed,
    end: at,
    duplicates,
    spans: new Map(track.map((p) => [p.join('.'), spans.get(p.join('\u0000')) ?? null])),
  };
}

/** Whether only white space follows `end`. */
export function endsAt(text, end) {
  return /^[ \t\r\n]*$/.test(text.slice(end));
}

/** An error's text as strict_json.rs words it: `message at line L column C`. */
export function described(text, message, offset) {
  const { line, column } = position(text, offset);
  return `${message} at line ${line} column ${column}`;
}
