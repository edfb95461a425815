// What the page receives from the engine: written by `cargo xtask codegen` from the Rust
// types (exemplar::session::RunReport, exemplar::page::PageMetadata) through their JSON Schema
// (engine.schema.json). Do not edit.

/** One condition of the A/B protocol, as the page shows it. */
export interface ConditionLabel {
  /** The key used in run records and the page's element ids (`pdf`, `webmcp`). */
  key: string;
  /** How the page names it. */
  label: string;
}

/**
 * An entry without its `args`: what a run's report carries (the arguments may be
 * megabytes; the ledger keeps them, or their size and SHA-256 when long).
 */
export interface EntryHeader {
  seq: number;
  time: string;
  tool: string;
  status: Status;
  dataset_sha256: string;
  engine_version: string;
  result_sha256: string;
  prev_hash: string;
  hash: string;
}

/** Why a tool call was refused, serialized in snake_case (`"unknown_tool"`, ...). */
export type ErrorCode = "unknown_tool" | "invalid_json" | "invalid_arguments" | "unknown_property" | "wrong_type" | "unknown_record" | "unknown_data" | "data_not_named" | "too_many_records" | "invalid_records" | "invalid_data" | "analysis_failed" | "not_converged" | "internal_error" | "cancelled" | "whole_engine";

/** The page's metadata. */
export interface PageMetadata {
  baseline_version: string;
  dataset_name: string;
  dataset_description: string;
  dataset_sha256: string;
  engine_version: string;
  prompt: string;
  rule: string;
  /** SHA-256 of the current released baseline's PDF. */
  pdf_sha256: string;
  pdf_path: string;
  conditions: [ConditionLabel, ConditionLabel];
  /** How many fields the scorer checks. */
  scored_fields: number;
  /** How many records the frozen dataset has. */
  record_count: number;
  /** The fields of a ledger entry, in the order an exported entry has them. */
  ledger_fields: string[];
  /** The longest plot SVG the page draws by itself ([`MAX_DRAWN_SVG_CHARS`]). */
  max_drawn_svg_chars: number;
}

/** A result as tables. */
export interface ResultView {
  /**
   * The printed summary: the result laid out as metafor's print methods lay it out,
   * after a headline (`summary::summary`); none for a data tool but `load_data` (the rows
   * it kept and left out).
   */
  summary: string | null;
  tables: Table[];
  /** The field of the result that holds an SVG drawn by the engine (a plot tool's `svg`). */
  figure: string | null;
  /** What the rounding is, said once under the tables. */
  note: string;
}

/**
 * The report of one run: what the page receives (`www/generated/engine.d.ts` and
 * `engine.schema.json` are written from this type). The result is the response's
 * structured content, held once ([`RunReport::result`]).
 */
export interface RunReport {
  /** The error, when the tool returned no result. */
  error?: ToolError | null;
  /** What the agent receives. */
  response: ToolResponse;
  /**
   * The ledger entry of the run, without its `args` (which may be megabytes; the ledger
   * keeps them, or their size and SHA-256 when long): the page shows `args_display`, and keeps the whole entry as the text
   * [`Session::last_entry_json`] gives, without parsing it.
   */
  entry: EntryHeader;
  /**
   * The plot to draw beside a successful result, if one goes with the call (see
   * [`Session::companion_plot`]).
   */
  plot: string | null;
  /**
   * How the page shows the result to a person: indented JSON, or `code: message`.
   * Direction controls are escaped ([`escape_direction_controls`]). A result longer than
   * [`RESULT_DISPLAY_CHARS`] is cut there with a note of its length (laying out
   * megabytes of text would hold the page for seconds); the whole result is the
   * response's structured content.
   */
  display: string;
  /** Whether `display` was cut. */
  display_abridged: boolean;
  /**
   * How the page shows a result to a person: the printed summary, tables of rounded
   * values, and the field holding a plot's SVG ([`crate::result_view`]); none for an
   * error, and none from the page's first module (built without `extended`), which
   * leaves the views to the whole engine.
   */
  view: ResultView | null;
  /**
   * How the page shows the ledgered arguments, escaped the same way and abridged to
   * [`DISPLAY_CHARS`] characters.
   */
  args_display: string;
}

/** How a run ended. */
export type Status = "ok" | "error" | "internal_error" | "cancelled";

/** One table: a caption, column headings and rows of cells, all text. */
export interface Table {
  caption: string;
  columns: string[];
  /** Indexes of the columns holding numbers (right-aligned). */
  numeric: number[];
  rows: string[][];
  /** Rows in the result (more than `rows` holds when it was cut at [`MAX_ROWS`]). */
  total_rows: number;
}

/** One text item of a tool response. */
export interface TextContent {
  type: string;
  text: string;
}

/** A refused tool call: a stable code and a message. */
export interface ToolError {
  code: ErrorCode;
  message: string;
}

/**
 * What a WebMCP `execute` (or an MCP `tools/call`) returns: the result as text and as
 * structured content, or `isError` with the error's text.
 */
export interface ToolResponse {
  content: TextContent[];
  structuredContent?: unknown;
  isError?: boolean;
}
