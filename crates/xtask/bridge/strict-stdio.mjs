// The bridge's stdio transport: one JSON-RPC message per line, read as strictly as
// `exemplar mcp` reads its own (crates/exemplar-cli/src/mcp/check.rs and stdio.rs), so that
// every line that asks for an answer gets one. The SDK's own StdioServerTransport reads a
// line with JSON.parse (a repeated key: the last wins, so {"method":"REML","method":"DL"}
// fits DL) and drops, unanswered, whatever its schema refuses (a batch array, a float id,
// a wrong `jsonrpc`) or a line over 10 MB (after which it closes). Here:
//
// - a line is at most MAX_MESSAGE_BYTES; a longer one is read to its end without being kept
//   and answered with an Invalid Request (-32600) giving its size, under its own `id` (found
//   while it streams by) or `"id": null`;
// - text that is not UTF-8 or not JSON (nesting over 127 deep, an escaped lone surrogate
//   included) is a Parse error (-32700) with `"id": null`; a message followed by other text
//   is a Parse error with the message's id;
// - a key repeated in a tool call's arguments is the tool's error, worded as the page's
//   engine words it for the same arguments text (`invalid_json: the arguments are not valid
//   JSON: duplicate key "method" at line 1 column 23`); a key repeated anywhere else is an
//   Invalid Request naming it;
// - valid JSON that is not a JSON-RPC 2.0 message (an array, a batch included; a missing or
//   wrong `jsonrpc`; an id that is not a string or an integer; a method that is not a
//   string; a bare number or string) is an Invalid Request with its id when it has one; a
//   notification is never answered (JSON-RPC), so an unknown one is ignored;
// - a tools/call whose params are not an object with a string "name" and an object (or
//   absent) "arguments" is Invalid params (-32602) saying what is wrong, as `exemplar mcp`
//   answers it (the SDK: -32603 with its schema's dump).
//
// It implements the SDK's Transport interface (start, send, close, onmessage, onclose,
// onerror), so the SDK's Server runs on it unchanged.

import process from 'node:process';
import { JSONRPCMessageSchema, JSONRPCRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { StrictJsonError, described, endsAt, parseFirst, shownKey } from './strict-json.mjs';

/** A tool call's arguments are at most this much JSON text (the page's engine's limit). */
export const MAX_ARGS_BYTES = 16 * 1024 * 1024;
/** Room for everything of a message besides a tool call's arguments. */
export const ENVELOPE_BYTES = 1024 * 1024;
/** The longest line read: 17 MiB, as `exemplar mcp`. */
export const MAX_MESSAGE_BYTES = MAX_ARGS_BYTES + ENVELOPE_BYTES;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

/** A JSON-RPC error message; `id` is null when the message's id cannot be known. */
export function error(id, code, message) {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** The message's id, or null when it has none that JSON-RPC allows. */
export function idOf(message) {
  const id = message !== null && typeof message === 'object' && !Array.isArray(message) ? message.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** The answer to a line longer than MAX_MESSAGE_BYTES. */
export function tooLarge(id, bytes, max = MAX_MESSAGE_BYTES) {
  return error(
    id,
    INVALID_REQUEST,
    `Invalid Request: the message is ${bytes} bytes; at most ${max} bytes are read (a tool call's arguments at most ${MAX_ARGS_BYTES} bytes of JSON text, plus ${ENVELOPE_BYTES} for the rest)`,
  );
}

/** What a JSON value is, in words ("an array", "null", "a string"). */
function kindOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Why the params of a tools/call request are not its shape, or null when they are: the
 * SDK would refuse them with its schema's dump as an Internal error (-32603); `exemplar
 * mcp` answers Invalid params (-32602) in these words (handler.rs `invalid_params`).
 */
export function toolsCallParams(message) {
  const request = typeof message.id === 'string' || Number.isInteger(message.id);
  if (message.method !== 'tools/call' || !request) return null;
  const { params } = message;
  let why = null;
  if (params === null || typeof params !== 'object' || Array.isArray(params)) why = `they are ${kindOf(params)}`;
  else if (!('name' in params)) why = '"name" is missing';
  else if (typeof params.name !== 'string') why = `"name" is ${kindOf(params.name)}, not a string`;
  else if ('arguments' in params && (params.arguments === null || typeof params.arguments !== 'object' || Array.isArray(params.arguments))) {
    why = `"arguments" is ${kindOf(params.arguments)}, not an object`;
  }
  if (why === null) return null;
  return error(
    idOf(message),
    INVALID_PARAMS,
    `Invalid params: the params of tools/call must be an object with "name" (a tool's name) and "arguments" (an object of that tool's arguments, or absent): ${why}`,
  );
}

/** Why valid JSON is not a JSON-RPC 2.0 message, in a sentence. */
function notAMessage(value) {
  if (Array.isArray(value)) {
    return 'a batch (a JSON array) is not accepted; send one JSON-RPC message at a time';
  }
  if (value === null || typeof value !== 'object') return 'a JSON-RPC message is an object';
  if (value.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if ('id' in value && !(typeof value.id === 'string' || Number.isInteger(value.id))) {
    return '"id" must be a string or an integer';
  }
  if ('method' in value && typeof value.method !== 'string') return '"method" must be a string';
  return 'it is neither a request, a notification nor a response of MCP';
}

/**
 * What to do with one line (without its newline): `{pass: message}` (hand it to the SDK),
 * `{answer: message}` (write this instead) or `{ignore: true}` (a notification nobody knows).
 */
export function check(bytes) {
  // A leading byte order mark is accepted, as `exemplar mcp` accepts it.
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return { answer: error(null, PARSE_ERROR, 'Parse error: the message is not UTF-8 text') };
  }
  let parsed;
  try {
    parsed = parseFirst(text, [['params', 'arguments']]);
  } catch (err) {
    if (!(err instanceof StrictJsonError)) throw err;
    return { answer: error(null, PARSE_ERROR, `Parse error: ${described(text, err.message, err.offset)}`) };
  }
  const { value, end, duplicates, spans } = parsed;
  if (!endsAt(text, end)) {
    const bytesEnd = Buffer.byteLength(text.slice(0, end));
    return {
      answer: error(
        idOf(value),
        PARSE_ERROR,
        `Parse error: the message ends at byte ${bytesEnd} and other text follows it (${described(text, 'trailing characters', end + text.slice(end).search(/[^ \t\r\n]/))}); send one JSON-RPC message at a time`,
      ),
    };
  }
  if (duplicates.length > 0) return { answer: repeatedKey(text, value, duplicates, spans.get('params.arguments')) };
  const wrongParams = value !== null && typeof value === 'object' && value.jsonrpc === '2.0' ? toolsCallParams(value) : null;
  if (wrongParams) return { answer: wrongParams };
  if (!JSONRPCMessageSchema.safeParse(value).success) {
    const notification = value !== null && typeof value === 'object' && !Array.isArray(value) && !('id' in value) && 'method' in value;
    if (notification) return { ignore: true };
    return { answer: error(idOf(value), INVALID_REQUEST, `Invalid Request: not a JSON-RPC 2.0 message of MCP: ${notAMessage(value)}`) };
  }
  return { pass: value };
}

/**
 * A message with a key repeated: in a tool call's arguments only, the tool's own refusal
 * (a result with isError, as the page's engine answers those arguments text); anywhere
 * else, an Invalid Request naming the first repeated key.
 */
function repeatedKey(text, value, duplicates, argumentsSpan) {
  const inArguments = (d) => d.path.length >= 2 && d.path[0] === 'params' && d.path[1] === 'arguments';
  const outside = duplicates.find((d) => !inArguments(d));
  if (!outside && argumentsSpan && value.method === 'tools/call' && JSONRPCRequestSchema.safeParse(value).success) {
    const argumentsText = text.slice(argumentsSpan[0], argumentsSpan[1]);
    const [first] = parseFirst(argumentsText).duplicates;
    return {
      jsonrpc: '2.0',
      id: value.id,
      result: {
        content: [
          {
            type: 'text',
            text: `invalid_json: the arguments are not valid JSON: ${described(argumentsText, `duplicate key ${shownKey(first.key)}`, first.offset)}`,
          },
        ],
        isError: true,
      },
    };
  }
  const first = outside ?? duplicates[0];
  return error(idOf(value), INVALID_REQUEST, `Invalid Request: ${described(text, `duplicate key ${shownKey(first.key)}`, first.offset)}`);
}

/** An id longer than this is not kept (JSON-RPC ids are short numbers or strings). */
const ID_BYTES = 256;

/**
 * Finds the top-level `"id"` of a message read piece by piece and never held whole (a line
 * too long to keep), so that its error answers the request waiting for it (check.rs's
 * IdScanner).
 */
export class IdScanner {
  depth = 0;
  inString = false;
  escaped = false;
  expectKey = false;
  key = null; // bytes of a key being read at depth 1
  keyIsId = false;
  value = null; // bytes of the id's value being read
  found = null;

  feed(bytes) {
    for (const b of bytes) this.step(b);
  }

  step(b) {
    if (this.value !== null) {
      const ends = !this.inString && this.depth === 1 && (b === 0x2c || b === 0x7d);
      if (ends) {
        this.found = this.value;
        this.value = null;
      } else if (this.value.length < ID_BYTES) this.value.push(b);
      else this.value = null;
    }
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (b === 0x5c) this.escaped = true;
      else if (b === 0x22) {
        this.inString = false;
        if (this.key !== null) {
          this.keyIsId = this.key.length === 2 && this.key[0] === 0x69 && this.key[1] === 0x64;
          this.key = null;
        }
        return;
      }
      if (this.key !== null) {
        if (this.key.length < 8) this.key.push(b);
        else this.key = [0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a, 0x2a];
      }
      return;
    }
    if (b === 0x22) {
      this.inString = true;
      if (this.depth === 1 && this.expectKey) {
        this.key = [];
        this.expectKey = false;
      }
    } else if (b === 0x7b || b === 0x5b) {
      this.depth += 1;
      if (this.depth === 1) this.expectKey = b === 0x7b;
    } else if (b === 0x7d || b === 0x5d) {
      this.depth = Math.max(0, this.depth - 1);
    } else if (b === 0x2c && this.depth === 1) {
      this.expectKey = true;
    } else if (b === 0x3a && this.depth === 1 && this.keyIsId) {
      this.keyIsId = false;
      this.value = [];
    }
  }

  /** The id seen, or null. */
  id() {
    if (this.found === null) return null;
    try {
      return idOf({ id: JSON.parse(Buffer.from(this.found).toString('utf8').trim()) });
    } catch {
      return null;
    }
  }
}

/** The SDK's Transport over stdin and stdout, reading as `check` says. */
export class StrictStdioServerTransport {
  constructor(stdin = process.stdin, stdout = process.stdout, { maxMessageBytes = MAX_MESSAGE_BYTES } = {}) {
    this.stdin = stdin;
    this.stdout = stdout;
    this.max = maxMessageBytes;
    this.pieces = [];
    this.size = 0;
    this.skipping = null; // {bytes, scanner} while a line too long streams by
    this.ondata = (chunk) => this.take(chunk);
    this.onend = () => this.endOfInput();
    this.onreaderror = (err) => this.onerror?.(err);
  }

  async start() {
    this.stdin.on('data', this.ondata);
    this.stdin.on('end', this.onend);
    this.stdin.on('error', this.onreaderror);
  }

  take(chunk) {
    let from = 0;
    while (from <= chunk.length) {
      const newline = chunk.indexOf(0x0a, from);
      const piece = chunk.subarray(from, newline === -1 ? chunk.length : newline);
      if (this.skipping) {
        this.skipping.bytes += piece.length;
        this.skipping.scanner.feed(piece);
      } else if (this.size + piece.length > this.max) {
        const scanner = new IdScanner();
        for (const kept of this.pieces) scanner.feed(kept);
        scanner.feed(piece);
        this.skipping = { bytes: this.size + piece.length, scanner };
        this.pieces = [];
        this.size = 0;
      } else if (piece.length > 0) {
        this.pieces.push(piece);
        this.size += piece.length;
      }
      if (newline === -1) return;
      this.lineEnded();
      from = newline + 1;
    }
  }

  /** The end of the input ends a last line without its newline too. */
  endOfInput() {
    if (this.skipping || this.size > 0) this.lineEnded();
  }

  lineEnded() {
    const skipped = this.skipping;
    const line = skipped ? null : Buffer.concat(this.pieces, this.size);
    this.pieces = [];
    this.size = 0;
    this.skipping = null;
    if (skipped) {
      this.write(tooLarge(skipped.scanner.id(), skipped.bytes, this.max));
      return;
    }
    const text = line.at(-1) === 0x0d ? line.subarray(0, -1) : line;
    if (text.every((b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d)) return;
    let verdict;
    try {
      verdict = check(text);
    } catch (err) {
      this.onerror?.(err);
      verdict = { answer: error(null, PARSE_ERROR, `Parse error: ${err?.message ?? err}`) };
    }
    if (verdict.answer) this.write(verdict.answer);
    else if (verdict.pass) {
      try {
        this.onmessage?.(verdict.pass);
      } catch (err) {
        this.onerror?.(err);
      }
    }
  }

  write(message) {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  send(message) {
    return this.write(message);
  }

  async close() {
    this.stdin.off('data', this.ondata);
    this.stdin.off('end', this.onend);
    this.stdin.off('error', this.onreaderror);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pieces = [];
    this.skipping = null;
    this.onclose?.();
  }
}
