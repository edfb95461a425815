//! What `exemplar mcp` serves, as rmcp's types: the rules every tool shares as the server's
//! `instructions`, the registry's tools, the frozen dataset's CSV, the methods text and the
//! tools' output schemas as resources, and the common prompt. Every value comes from
//! `exemplar`; this module only maps it onto the protocol.
//!
//! Each answer is a plain function (tested without a transport); [`ExemplarServer`] hands
//! them to rmcp.

use exemplar::session::ToolResponse;
use exemplar::tools::{self, ErrorCode};
use exemplar::{dataset, protocol};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, GetPromptRequestParams, GetPromptResponse, GetPromptResult, Implementation,
    JsonObject, ListPromptsResult, ListResourcesResult, ListToolsResult, MetaObject,
    PaginatedRequestParams, Prompt, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use super::check::{ParsedArguments, RefusedArguments};
use super::gate::{CallGate, ClientGone, MessageBytes};
use super::held::{self, HeldData, SessionStore};

/// The resource holding the frozen dataset's CSV, byte for byte.
pub const DATASET_URI: &str = "exemplar://dataset/dat.raudenbush1985.csv";
/// The resource holding the methods text (`docs/METHODS.md`).
pub const METHODS_URI: &str = "exemplar://docs/METHODS.md";
/// The resource holding every tool's output schema, by tool name: not part of tools/list,
/// which stays lean (`exemplar::tools` says why).
pub const OUTPUT_SCHEMAS_URI: &str = "exemplar://tools/output-schemas.json";
/// The one prompt: the common prompt of both benchmark conditions.
pub const PROMPT_NAME: &str = "common_prompt";

/// The MCP server of `exemplar mcp`: one per connection or HTTP session, all sharing one
/// [`CallGate`] and one [`HeldData`].
#[derive(Debug, Clone)]
pub struct ExemplarServer {
    gate: Arc<CallGate>,
    /// This session's number, by which the gate shares turns fairly between sessions.
    session: u64,
    /// This session's data handles (`load_data`): in memory, one store per MCP session.
    store: SessionStore,
    /// Every session's stores, bounded together.
    held: Arc<HeldData>,
}

impl ExemplarServer {
    pub fn new(gate: Arc<CallGate>, held: Arc<HeldData>) -> Self {
        static SESSIONS: AtomicU64 = AtomicU64::new(0);
        ExemplarServer {
            gate,
            session: SESSIONS.fetch_add(1, Ordering::Relaxed),
            store: held.session_store(),
            held,
        }
    }
}

impl Default for ExemplarServer {
    fn default() -> Self {
        ExemplarServer::new(Arc::default(), Arc::default())
    }
}

/// The registry's tool definitions as MCP tools, built once.
pub fn tools() -> &'static [Tool] {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS.get_or_init(|| tools::definitions().into_iter().map(mcp_tool).collect())
}

/// One definition as an MCP tool: name, title, description and both schemas as they are.
/// Its annotations are WebMCP's; those MCP's `ToolAnnotations` also defines
/// (`readOnlyHint`) stay annotations, and the others (`untrustedContentHint`), which an MCP
/// annotation cannot carry, go under the same names in the tool's `_meta`.
fn mcp_tool(definition: tools::ToolDefinition) -> Tool {
    let webmcp = match serde_json::to_value(&definition.annotations) {
        Ok(Value::Object(map)) => map,
        _ => unreachable!("annotations serialize to an object"),
    };
    let annotations: ToolAnnotations = serde_json::from_value(Value::Object(webmcp.clone()))
        .expect("WebMCP annotations are booleans");
    let kept = serde_json::to_value(&annotations).expect("annotations serialize");
    let rest: JsonObject = webmcp
        .into_iter()
        .filter(|(key, _)| kept.get(key).is_none())
        .collect();
    let mut tool = Tool::new(
        definition.name,
        definition.description,
        Arc::new(object(definition.input_schema)),
    )
    .with_title(definition.title)
    .with_annotations(annotations);
    if !definition.output_schema.is_null() {
        tool = tool.with_raw_output_schema(Arc::new(object(definition.output_schema)));
    }
    if !rest.is_empty() {
        tool = tool.with_meta(MetaObject(rest));
    }
    tool
}

fn object(schema: Value) -> JsonObject {
    match schema {
        Value::Object(map) => map,
        other => unreachable!("a tool schema is an object, not {other}"),
    }
}

/// What the initialize result carries as `instructions`: the rules every tool shares
/// (`exemplar::tools::instructions()`), which the tool descriptions do not repeat.
pub fn instructions() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(tools::instructions)
}

/// Every tool's output schema as one JSON object by tool name, built once.
fn output_schemas() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| tools::output_schemas_json().to_string())
}

/// Runs a tool through the registry's own validation and dispatch. A tool error is a
/// result with `isError` and the error's text (`code: message`); only a tool that does not
/// exist is a protocol error (invalid params), as MCP asks.
#[cfg(test)]
pub fn call(name: &str, arguments: Option<JsonObject>) -> Result<CallToolResult, ErrorData> {
    ExemplarServer::default().run_tool(name, arguments)
}

impl ExemplarServer {
    /// Runs a tool in this session, whose data handles are its store, as the registry does.
    /// Only `load_data` holds the store while it runs; any other call reads a copy (shared
    /// data), so calls run side by side. After a load, the oldest handles of all sessions
    /// are dropped beyond the server's budget; those of this session join the load's
    /// `expired`.
    pub fn run_tool(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallToolResult, ErrorData> {
        #[cfg(test)]
        if name == test_hook::SLOW_TOOL {
            return Ok(test_hook::slow(arguments));
        }
        let args = arguments.map_or(Value::Null, Value::Object);
        let mut store = held::lock(&self.store);
        let outcome = if name == tools::LOAD_DATA.name {
            let mut outcome = tools::outcome_in(name, &args, &mut store);
            drop(store);
            if let Ok(result) = &mut outcome.result {
                let dropped = self.held.make_room(&self.store);
                if let Some(expired) = result["expired"].as_array_mut() {
                    expired.extend(dropped.into_iter().map(Value::String));
                }
            }
            outcome
        } else {
            let mut copy = store.clone();
            drop(store);
            tools::outcome_in(name, &args, &mut copy)
        };
        if let Err(error) = &outcome.result {
            if error.code == ErrorCode::UnknownTool {
                return Err(ErrorData::invalid_params(error.to_string(), None));
            }
        }
        let mut result = result_of(&outcome.result);
        if let Ok(value) = &outcome.result {
            // The printed summary beside the JSON (content[0] stays the JSON text that
            // structuredContent carries): what a person reads, as metafor prints it.
            if let Some(summary) = exemplar::tools::summary(name, value) {
                result.content.push(ContentBlock::text(summary));
            }
            if let Some(image) = plot_image(name, value) {
                result.content.push(image);
            }
        }
        Ok(result)
    }
}

/// Pixels an inch of a plot's PNG beside its SVG: one image pixel per SVG pixel, as a page
/// shows it at 1×; lean for a client's context (a forest plot is about 36 KB), where
/// `exemplar plot --format png` makes 300 dpi for a paper.
pub const IMAGE_DPI: u32 = 96;

/// A plot tool's figure as image content (PNG, base64) after its text: for a client that
/// shows images rather than reading SVG. `None` for any other tool, or a plot too large to
/// render (the SVG text is still there).
fn plot_image(name: &str, result: &Value) -> Option<ContentBlock> {
    use base64::Engine;
    let plot = tools::find(name).is_some_and(|tool| tool.group == tools::ToolGroup::Plot);
    let svg = result.get("svg").and_then(Value::as_str).filter(|_| plot)?;
    let format = exemplar_figures::Format::Png { dpi: IMAGE_DPI };
    let png = exemplar_figures::render(svg, format).ok()?;
    Some(ContentBlock::image(
        base64::engine::general_purpose::STANDARD.encode(png),
        format.mime_type(),
    ))
}

/// A refused call as a tool error, exactly as the registry words it.
fn tool_error(error: &tools::ToolError) -> CallToolResult {
    result_of(&Err(error.clone()))
}

fn result_of(outcome: &Result<Value, tools::ToolError>) -> CallToolResult {
    let response = ToolResponse::of(outcome);
    let content = response
        .content
        .into_iter()
        .map(|item| ContentBlock::text(item.text))
        .collect();
    let mut result = if response.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = response.structured_content;
    result
}

/// The dataset's CSV, the methods text and the tools' output schemas.
pub fn resources() -> Vec<Resource> {
    vec![
        Resource::new(DATASET_URI, dataset::NAME)
            .with_title("The frozen dataset (CSV)")
            .with_description(format!(
                "{} The exact bytes; SHA-256 {}.",
                dataset::DESCRIPTION,
                dataset::sha256()
            ))
            .with_mime_type("text/csv")
            .with_size(dataset::CSV.len() as u64),
        Resource::new(METHODS_URI, "METHODS.md")
            .with_title("Methods")
            .with_description(
                "Every formula and convention of the engine, and how each differs from \
metafor's defaults (docs/METHODS.md).",
            )
            .with_mime_type("text/markdown")
            .with_size(exemplar::methods_markdown().len() as u64),
        Resource::new(OUTPUT_SCHEMAS_URI, "output-schemas.json")
            .with_title("The tools' output schemas")
            .with_description(
                "Every tool's output schema (JSON Schema of its structuredContent), as one \
object by tool name: every result field with its type, closed. tools/list leaves them out \
to stay small.",
            )
            .with_mime_type("application/json")
            .with_size(output_schemas().len() as u64),
    ]
}

/// The text of resource `uri`.
pub fn read(uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let (text, mime_type) = match uri {
        DATASET_URI => (dataset::CSV, "text/csv"),
        METHODS_URI => (exemplar::methods_markdown(), "text/markdown"),
        OUTPUT_SCHEMAS_URI => (output_schemas(), "application/json"),
        _ => {
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource {uri:?}; the resources are {DATASET_URI}, {METHODS_URI} and \
{OUTPUT_SCHEMAS_URI}"
                ),
                None,
            ))
        }
    };
    Ok(ReadResourceResult::new(vec![ResourceContents::text(
        text, uri,
    )
    .with_mime_type(mime_type)]))
}

/// The common prompt, listed.
pub fn prompts() -> Vec<Prompt> {
    vec![Prompt::new(
        PROMPT_NAME,
        Some("The common prompt given to an agent in both benchmark conditions, byte for byte."),
        None,
    )
    .with_title("The benchmark's common prompt")]
}

/// Prompt `name`: the common prompt as one user message.
pub fn prompt(name: &str) -> Result<GetPromptResult, ErrorData> {
    if name != PROMPT_NAME {
        return Err(ErrorData::invalid_params(
            format!("no prompt {name:?}; the one prompt is {PROMPT_NAME}"),
            None,
        ));
    }
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(
        Role::User,
        protocol::PROMPT,
    )]))
}

/// The invalid-params error of a request for `method`, one this server serves, whose
/// `params` rmcp could not read as that method's; `None` for another method.
fn invalid_params(method: &str, params: Option<Value>) -> Option<ErrorData> {
    let params = params.unwrap_or(Value::Null);
    fn reason<T>(read: serde_json::Result<T>) -> String {
        match read {
            Err(e) => e.to_string(),
            Ok(_) => "they do not have that shape".to_owned(),
        }
    }
    let (shape, why) = match method {
        "tools/call" => (
            "an object with \"name\" (a tool's name) and \"arguments\" (an object of that \
tool's arguments, or absent)",
            reason(serde_json::from_value::<CallToolRequestParams>(params)),
        ),
        "resources/read" => (
            "an object with \"uri\" (a resource's URI)",
            reason(serde_json::from_value::<ReadResourceRequestParams>(params)),
        ),
        "prompts/get" => (
            "an object with \"name\" (a prompt's name)",
            reason(serde_json::from_value::<GetPromptRequestParams>(params)),
        ),
        "initialize"
        | "ping"
        | "tools/list"
        | "resources/list"
        | "resources/templates/list"
        | "prompts/list" => ("an object, or absent", "they are not".to_owned()),
        _ => return None,
    };
    Some(ErrorData::invalid_params(
        format!("Invalid params: the params of {method} must be {shape}: {why}"),
        None,
    ))
}

impl ServerHandler for ExemplarServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(
            Implementation::new("exemplar", env!("CARGO_PKG_VERSION"))
                .with_title("Living-evidence exemplar"),
        )
        .with_instructions(instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools().to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The arguments' text was refused before rmcp parsed it (a key repeated, too long):
        // the page's and the CLI's answer for the same text.
        // (What the transport attached: in the request's extensions on stdio, in its HTTP
        // parts' over Streamable HTTP.)
        fn attached<T: Send + Sync + 'static>(context: &RequestContext<RoleServer>) -> Option<&T> {
            context.extensions.get::<T>().or_else(|| {
                context
                    .extensions
                    .get::<axum::http::request::Parts>()
                    .and_then(|parts| parts.extensions.get::<T>())
            })
        }
        if let Some(RefusedArguments(error)) = attached(&context) {
            return Ok(tool_error(error).into());
        }
        let bytes = attached::<MessageBytes>(&context).map_or(0, |size| size.0);
        // The client has gone: rmcp's token (notifications/cancelled, the session's end) or
        // the HTTP request closed.
        let gone = {
            let cancelled = context.ct.clone();
            let closed = attached::<ClientGone>(&context).map(|gone| gone.0.clone());
            async move {
                match closed {
                    Some(closed) => tokio::select! {
                        () = cancelled.cancelled() => {}
                        () = closed.cancelled() => {}
                    },
                    None => cancelled.cancelled().await,
                }
            }
        };
        let CallToolRequestParams {
            name, arguments, ..
        } = request;
        // Over HTTP a call's arguments come parsed beside the body (check::set_aside_arguments).
        let arguments = attached::<ParsedArguments>(&context)
            .and_then(ParsedArguments::take)
            .or(arguments);
        let tool = name.clone();
        let session = self.clone();
        let work = move || session.run_tool(&name, arguments);
        match self.gate.run(self.session, bytes, &tool, gone, work).await {
            Ok(answer) => answer.map(CallToolResponse::from),
            Err(refusal) => Ok(CallToolResult::from(refusal).into()),
        }
    }

    /// A request rmcp could not read as its method's type reaches here as a custom request:
    /// for a method this server serves, its params are wrong (-32602 naming the method and
    /// what is wrong), not an unknown method (-32601).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(match invalid_params(&request.method, request.params) {
            Some(error) => error,
            None => ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            ),
        })
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resources()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        read(&request.uri).map(ReadResourceResponse::from)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(prompts()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        prompt(&request.name).map(GetPromptResponse::from)
    }
}

/// A tool that only takes time, for the gate's tests through each transport: `{"ms": how
/// long it sleeps, "tag": a name its starts are counted under}`.
#[cfg(test)]
pub mod test_hook {
    use super::*;
    use std::collections::HashMap;
    use std::sync::Mutex;

    pub const SLOW_TOOL: &str = "test_slow_call";

    static STARTED: Mutex<Option<HashMap<String, usize>>> = Mutex::new(None);

    /// How many calls tagged `tag` have started.
    pub fn started(tag: &str) -> usize {
        let started = STARTED.lock().unwrap();
        started
            .as_ref()
            .and_then(|map| map.get(tag).copied())
            .unwrap_or(0)
    }

    pub fn slow(arguments: Option<JsonObject>) -> CallToolResult {
        let arguments = arguments.unwrap_or_default();
        let tag = arguments["tag"].as_str().unwrap_or_default().to_owned();
        *STARTED
            .lock()
            .unwrap()
            .get_or_insert_with(HashMap::new)
            .entry(tag)
            .or_default() += 1;
        let ms = arguments["ms"].as_u64().unwrap_or(0);
        std::thread::sleep(std::time::Duration::from_millis(ms));
        CallToolResult::success(vec![ContentBlock::text("slept")])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: Value) -> Option<JsonObject> {
        Some(object(value))
    }

    #[test]
    fn tools_are_the_registry_definitions() {
        let listed = serde_json::to_value(tools()).unwrap();
        let defined = tools::definitions_json();
        let (listed, defined) = (listed.as_array().unwrap(), defined.as_array().unwrap());
        assert_eq!(listed.len(), defined.len());
        for (tool, definition) in listed.iter().zip(defined) {
            for key in [
                "name",
                "title",
                "description",
                "inputSchema",
                "outputSchema",
            ] {
                assert_eq!(
                    tool[key], definition[key],
                    "{key} of {}",
                    definition["name"]
                );
            }
            // Every WebMCP annotation is there, as an MCP annotation or in _meta.
            for (hint, value) in definition["annotations"].as_object().unwrap() {
                let carried = tool["annotations"].get(hint).or(tool["_meta"].get(hint));
                assert_eq!(carried, Some(value), "{hint} of {}", definition["name"]);
            }
            assert!(tool["annotations"]["readOnlyHint"].is_boolean());
        }
    }

    #[test]
    fn a_call_answers_as_the_page_does() {
        let fit = call(tools::FIT_RANDOM_EFFECTS.name, None).unwrap();
        let expected = tools::call(tools::FIT_RANDOM_EFFECTS.name, &json!({})).unwrap();
        assert_eq!(fit.structured_content, Some(expected.clone()));
        assert_eq!(fit.is_error, Some(false));
        let summary = exemplar::tools::summary(tools::FIT_RANDOM_EFFECTS.name, &expected);
        assert_eq!(
            fit.content,
            vec![
                ContentBlock::text(expected.to_string()),
                ContentBlock::text(summary.unwrap())
            ]
        );
    }

    /// Issue 45 item 3: a plot tool's result carries its figure as a PNG image beside the
    /// SVG text, one pixel per SVG pixel; other tools carry none.
    #[test]
    fn a_plot_comes_with_its_png() {
        use base64::Engine;
        let plot = call(tools::FOREST_PLOT.name, args(json!({"exclude": ["s04"]}))).unwrap();
        let expected = tools::call(tools::FOREST_PLOT.name, &json!({"exclude": ["s04"]})).unwrap();
        assert_eq!(plot.structured_content, Some(expected.clone()));
        let content = serde_json::to_value(&plot.content).unwrap();
        let content = content.as_array().unwrap();
        assert_eq!(content[0]["text"], expected.to_string());
        let image = content.last().unwrap();
        assert_eq!(image["type"], "image");
        assert_eq!(image["mimeType"], "image/png");
        assert_eq!(content.iter().filter(|c| c["type"] == "image").count(), 1);
        let png = base64::engine::general_purpose::STANDARD
            .decode(image["data"].as_str().unwrap())
            .unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        // IHDR: as wide and high as the SVG's viewBox, in pixels.
        let svg = expected["svg"].as_str().unwrap();
        let view_box: Vec<f64> = svg
            .split("viewBox=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .split(' ')
            .map(|n| n.parse().unwrap())
            .collect();
        let be = |at: usize| f64::from(u32::from_be_bytes(png[at..at + 4].try_into().unwrap()));
        assert_eq!((be(16), be(20)), (view_box[2].ceil(), view_box[3].ceil()));
        assert_eq!(
            png,
            exemplar_figures::render(svg, exemplar_figures::Format::Png { dpi: IMAGE_DPI })
                .unwrap()
        );

        let fit = call(tools::FIT_RANDOM_EFFECTS.name, None).unwrap();
        let content = serde_json::to_value(&fit.content).unwrap();
        assert!(content
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["type"] == "text"));
    }

    /// Issue 41 item 4: the summary in the text content writes an id's controls as visible
    /// escapes (a newline cannot forge a line, an escape sequence reaches no terminal).
    #[test]
    fn the_text_content_writes_no_control_from_an_id() {
        let hostile = "s\u{1b}]52;c;aGk=\u{7}\u{202e}\nFORGED";
        let records = json!([
            {"id": hostile, "yi": 0.1, "vi": 0.01},
            {"id": "b", "yi": 0.3, "vi": 0.02},
            {"id": "c", "yi": -0.1, "vi": 0.04}
        ]);
        let result = call("leave_one_out", args(json!({"records": records}))).unwrap();
        let content = serde_json::to_value(&result.content).unwrap();
        let summary = content[1]["text"].as_str().unwrap();
        assert!(
            !summary.contains(|c: char| c != '\n' && exemplar::printable::is_unprintable(c)),
            "{summary:?}"
        );
        assert!(summary.contains("s\\u001b]52;c;aGk=\\u0007"), "{summary}");
        assert!(
            !summary.lines().any(|l| l.starts_with("FORGED")),
            "{summary}"
        );
    }

    #[test]
    fn a_tool_error_is_a_result_naming_the_bad_argument() {
        let refit = call(
            tools::REFIT_EXCLUDING.name,
            args(json!({"exclude": ["s99"]})),
        )
        .unwrap();
        assert_eq!(refit.is_error, Some(true));
        assert_eq!(refit.structured_content, None);
        let text = serde_json::to_value(&refit.content).unwrap()[0]["text"].clone();
        assert!(
            text.as_str().unwrap().starts_with("unknown_record: "),
            "{text}"
        );
        assert!(text.as_str().unwrap().contains("s99"), "{text}");

        let typed = call(
            tools::FIT_RANDOM_EFFECTS.name,
            args(json!({"level": "high"})),
        )
        .unwrap();
        assert_eq!(typed.is_error, Some(true));
        let text = serde_json::to_value(&typed.content).unwrap()[0]["text"].clone();
        assert!(text.as_str().unwrap().starts_with("wrong_type: "), "{text}");
        assert!(text.as_str().unwrap().contains("level"), "{text}");
    }

    #[test]
    fn an_unknown_tool_is_a_protocol_error() {
        let error = call("no_such_tool", None).unwrap_err();
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert!(error.message.contains("no_such_tool"), "{}", error.message);
    }

    #[test]
    fn the_instructions_are_the_shared_rules() {
        let info = ExemplarServer::default().get_info();
        assert_eq!(
            info.instructions.as_deref(),
            Some(tools::instructions().as_str())
        );
    }

    #[test]
    fn resources_hold_the_exact_bytes() {
        let listed = resources();
        assert_eq!(listed.len(), 3);
        let csv = serde_json::to_value(read(DATASET_URI).unwrap()).unwrap();
        assert_eq!(csv["contents"][0]["text"], dataset::CSV);
        assert_eq!(csv["contents"][0]["mimeType"], "text/csv");
        let methods = serde_json::to_value(read(METHODS_URI).unwrap()).unwrap();
        assert_eq!(methods["contents"][0]["text"], exemplar::methods_markdown());
        assert_eq!(methods["contents"][0]["mimeType"], "text/markdown");
        let schemas = serde_json::to_value(read(OUTPUT_SCHEMAS_URI).unwrap()).unwrap();
        assert_eq!(schemas["contents"][0]["mimeType"], "application/json");
        let text = schemas["contents"][0]["text"].as_str().unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            tools::output_schemas_json()
        );
        assert_eq!(listed[2].size, Some(text.len() as u64));
        let missing = read("exemplar://nothing").unwrap_err();
        assert!(missing.message.contains("exemplar://nothing"));
        assert!(missing.message.contains(OUTPUT_SCHEMAS_URI));
    }

    #[test]
    fn the_prompt_is_the_common_prompt() {
        let listed = prompts();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].name, PROMPT_NAME);
        let got = serde_json::to_value(prompt(PROMPT_NAME).unwrap()).unwrap();
        assert_eq!(got["messages"][0]["role"], "user");
        assert_eq!(got["messages"][0]["content"]["text"], protocol::PROMPT);
        assert!(prompt("other").unwrap_err().message.contains("other"));
    }
}
