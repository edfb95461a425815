//! The `exemplar` command under the Python package's name, so that `uvx
//! living-evidence-exemplar mcp` (and the MCP registry's server.json, which runs the package by
//! its name) starts the server. Built only for the wheel (feature `wheel`,
//! packaging/python/pyproject.toml); it is the same program as `exemplar`.

#[path = "../main.rs"]
mod exemplar_command;

fn main() -> std::process::ExitCode {
    exemplar_command::main()
}
