// Types of living-evidence-exemplar (index.js). The engine's own report types are in
// engine.d.ts, which `cargo xtask codegen` writes from the Rust types.
import type { PageMetadata, ErrorCode } from './engine.js';
export type * from './engine.js';

/** A JSON Schema object, as a tool's `inputSchema` is. */
export type JsonSchema = { [key: string]: unknown };

/** One tool's definition, as the page registers it (WebMCP) and `exemplar tools` prints it. */
export interface ToolDefinition {
  name: string;
  title: string;
  /** The one-line summary the page shows first. */
  summary: string;
  group: { key: string; title: string };
  description: string;
  inputSchema: JsonSchema;
  annotations: { readOnlyHint?: boolean; untrustedContentHint?: boolean; [hint: string]: unknown };
  [member: string]: unknown;
}

/** Every tool's definition. */
export declare const tools: ToolDefinition[];

/** A tool's error. */
export declare class ToolError extends Error {
  readonly code: ErrorCode;
  /** The engine's message (it names the bad argument). */
  readonly detail: string;
}

/** Runs a tool and returns its result (the JSON `exemplar call` prints); throws a ToolError. */
export declare function call(name: string, args?: Record<string, unknown> | string): any;
/** `{"ok": result}` or `{"error": {"code", "message"}}` as JSON text; never throws. */
export declare function callJson(name: string, argsJson?: string): string;
export declare function hasTool(name: string): boolean;
export declare function instructions(): string;
export declare function metadata(): PageMetadata;
export declare function datasetCsv(): string;
/** The scorer's report of a raw answer (parse failures included). */
export declare function score(answer: string): any;

/** A session as the page holds one: data handles and the audit ledger. */
export declare class Session {
  constructor();
  /** The run's report (`RunReport`) as JSON text. */
  run(tool: string, argsJson: string, timeIso: string): string;
  /** The ledger's entries as a JSON array. */
  entriesJson(): string;
  /** `{"ok": true, "length": n}` or `{"ok": false, "seq": n, "message": "..."}` as JSON text. */
  verify(): string;
  free(): void;
}
