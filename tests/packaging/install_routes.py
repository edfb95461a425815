"""The install routes of the README, run as written, against the artifacts built here.

Run by `cargo xtask test` (crates/xtask/src/packaging.rs, suite "python wheel, cargo install,
README routes, server.json") with the packaging tools' venv, which holds the official Python
MCP SDK (`mcp`), `uv` and the MCP registry's server.json schemas (PyPI `skillsaw`). The
environment names what was built: ROOT (the checkout), WHEEL (the wheel maturin built),
TOOLS_VENV, SCRATCH (an empty folder), EXEMPLAR_BIN (the debug `exemplar`, whose answers are
the reference), PYTHON_BIN.

What runs:
1. The wheel, installed into a fresh venv with pip (no index), serves MCP: initialize, tools/list
   (the tools of `exemplar tools`), tools/call equal to `exemplar call`.
2. Every command and client configuration between the README's install markers, as written. The
   package name resolves to the local wheel through the installers' own settings, not by
   rewriting the command: uv's UV_FIND_LINKS with UV_OFFLINE, pip's PIP_FIND_LINKS with
   PIP_NO_INDEX; `cargo install` writes under SCRATCH through CARGO_INSTALL_ROOT. A server
   command (`... mcp`, a configuration's command and args, `claude mcp add NAME -- ...`'s
   command) is started by the MCP SDK's stdio client and checked as in 1. `npm install` is the
   npm suite's (tests/packaging/npm_consumer.test.mjs).
3. packaging/server.json against the registry's released schema it names, and against the
   packages: its pypi identifier and version are the wheel's, its name is the wheel README's
   `mcp-name`.
"""

import asyncio
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(os.environ["ROOT"])
WHEEL = Path(os.environ["WHEEL"])
TOOLS_VENV = Path(os.environ["TOOLS_VENV"])
SCRATCH = Path(os.environ["SCRATCH"])
REFERENCE = os.environ["EXEMPLAR_BIN"]
PYTHON = os.environ.get("PYTHON_BIN", "python3")

PYPI_NAME = os.environ.get("PACKAGE_NAME", "living-evidence-exemplar")
# The MCP registry's released schema of 2025-12-11, as the registry publishes it at the URL
# server.json names; its SHA-256 pins the copy that PyPI's skillsaw ships.
SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"

passed = 0
failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def reference(*args):
    out = subprocess.run([REFERENCE, *args], capture_output=True, text=True, check=True)
    return out.stdout


REF_FIT = json.loads(reference("call", "fit_random_effects", "{}"))
REF_REFIT = json.loads(reference("call", "refit_excluding", '{"exclude":["s04"]}'))
REF_TOOLS = [t["name"] for t in json.loads(reference("tools"))]


def base_env(extra_path=()):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join([*map(str, extra_path), str(TOOLS_VENV / "bin"), env.get("PATH", "")])
    # uvx and pip resolve the package name to the wheel built here, and fetch nothing.
    env.update(
        UV_FIND_LINKS=str(WHEEL.parent),
        UV_OFFLINE="1",
        UV_NO_CONFIG="1",
        UV_PYTHON_DOWNLOADS="never",
        UV_PYTHON=PYTHON,
        UV_CACHE_DIR=str(SCRATCH / "uv-cache"),
        UV_TOOL_DIR=str(SCRATCH / "uv-tools"),
        PIP_FIND_LINKS=str(WHEEL.parent),
        PIP_NO_INDEX="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        CARGO_INSTALL_ROOT=str(SCRATCH / "cargo-root"),
    )
    return env


async def drive(label, command, args, env):
    """Starts a server with the MCP SDK's stdio client and checks what it answers."""
    exe = shutil.which(command, path=env["PATH"])
    if exe is None:
        check(f"{label}: `{command}` is found", False, f"PATH={env['PATH']}")
        return
    params = StdioServerParameters(command=exe, args=list(args), env=env, cwd=str(SCRATCH))
    with open(SCRATCH / "server-stderr.log", "a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                init = await asyncio.wait_for(session.initialize(), 120)
                check(f"{label}: initialize names the server", init.server_info.name == "exemplar", init.server_info)
                listed = await session.list_tools()
                names = [t.name for t in listed.tools]
                check(f"{label}: tools/list is `exemplar tools`", names == REF_TOOLS, names)
                fit = await session.call_tool("fit_random_effects", {})
                check(
                    f"{label}: tools/call fit_random_effects equals `exemplar call`",
                    not fit.is_error and fit.structured_content == REF_FIT,
                    fit,
                )
                refit = await session.call_tool("refit_excluding", {"exclude": ["s04"]})
                check(
                    f"{label}: tools/call refit_excluding equals `exemplar call`",
                    refit.structured_content == REF_REFIT,
                )
                bad = await session.call_tool("refit_excluding", {"exclude": ["nope"]})
                check(f"{label}: a tool error is a result with isError", bad.is_error is True, bad)


def install_section():
    text = (ROOT / "README.md").read_text()
    start = text.index("<!-- install:begin")
    end = text.index("<!-- install:end -->")
    return re.findall(r"^```(\w+)\n(.*?)^```", text[start:end], re.S | re.M)


def command_lines(block):
    for line in block.splitlines():
        line = re.split(r"\s{2,}#", line)[0].strip()
        if line and not line.startswith("#"):
            yield line


def fresh_venv(name):
    venv = SCRATCH / name
    subprocess.run([PYTHON, "-m", "venv", str(venv)], check=True)
    return venv


async def wheel_in_fresh_venv():
    venv = fresh_venv("wheel-venv")
    env = base_env()
    subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index", str(WHEEL)], check=True, env=env)
    with zipfile.ZipFile(WHEEL) as wheel:
        scripts = [n for n in wheel.namelist() if ".data/scripts/" in n]
    check(
        "the wheel carries the exemplar binary, also under the package's name, and nothing else runs",
        sorted(s.rsplit("/", 1)[1] for s in scripts) == ["exemplar", PYPI_NAME],
        scripts,
    )
    exemplar = venv / "bin" / "exemplar"
    out = subprocess.run([str(exemplar), "call", "fit_random_effects", "{}"], capture_output=True, text=True, env=env)
    check("the wheel's `exemplar call` prints the reference", out.returncode == 0 and json.loads(out.stdout) == REF_FIT)
    await drive("wheel in a fresh venv", str(exemplar), ["mcp"], base_env([venv / "bin"]))
    # What a registry client runs from server.json's pypi entry: `uvx IDENTIFIER ARGS`.
    doc = json.loads((ROOT / "packaging" / "server.json").read_text())
    entry = next(p for p in doc["packages"] if p["registryType"] == "pypi")
    args = [a["value"] for a in entry.get("packageArguments", [])]
    await drive(f"server.json's entry: {entry['runtimeHint']} {entry['identifier']} {' '.join(args)}", entry["runtimeHint"], [entry["identifier"], *args], base_env())


async def readme_routes():
    blocks = install_section()
    check("the README's install section has sh and json blocks", {"sh", "json"} <= {lang for lang, _ in blocks}, blocks)
    pip_venv = fresh_venv("readme-pip-venv")
    installed_path = [pip_venv / "bin", SCRATCH / "cargo-root" / "bin"]
    seen = set()
    for lang, block in blocks:
        if lang == "sh":
            for line in command_lines(block):
                argv = shlex.split(line)
                label = f"README `{line}`"
                env = base_env(installed_path)
                if argv[0] == "npm":
                    check(f"{label} names the npm package", argv[:2] == ["npm", "install"] and len(argv) == 3)
                    seen.add("npm")
                elif argv[:3] == ["claude", "mcp", "add"]:
                    # Claude Code's CLI is not here: what it registers is the command after `--`.
                    server = argv[argv.index("--") + 1 :]
                    await drive(label, server[0], server[1:], env)
                    seen.add("claude")
                elif argv[-1] == "mcp":
                    await drive(label, argv[0], argv[1:], env)
                    seen.add(argv[0])
                else:
                    # Run it as written; `pip` is the fresh venv's (its bin is first on PATH).
                    # `cargo install` gets `--debug`: the same program from the dev artifacts the
                    # other suites built, not a second, optimized build of every crate (minutes
                    # of CI's two cores; the README's install section says so).
                    if argv[:2] == ["cargo", "install"]:
                        argv = [*argv, "--debug"]
                    out = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
                    check(label, out.returncode == 0, out.stderr[-2000:])
                    if argv[:2] == ["exemplar", "call"]:
                        check(f"{label} prints the reference", json.loads(out.stdout) == REF_FIT)
                    seen.add(argv[0])
        elif lang == "json":
            config = json.loads(block)
            servers = config.get("mcpServers") or config.get("servers")
            for name, entry in servers.items():
                check(f"README config `{name}` is a stdio server", entry.get("type", "stdio") == "stdio", entry)
                if entry["command"] == "exemplar":
                    for where, path in [("pip", pip_venv / "bin"), ("cargo install", SCRATCH / "cargo-root" / "bin")]:
                        await drive(f"README config `{name}` ({where})", "exemplar", entry["args"], base_env([path]))
                else:
                    await drive(f"README config `{name}`: {entry['command']} {entry['args']}", entry["command"], entry["args"], base_env())
            seen.add("json:" + ("mcpServers" if "mcpServers" in config else "servers"))
    for route in ["uvx", "pip", "cargo", "exemplar", "claude", "npm", "json:mcpServers", "json:servers"]:
        check(f"the README's install section has the {route} route", route in seen, seen)
    installed = SCRATCH / "cargo-root" / "bin" / "exemplar"
    check("`cargo install --path crates/exemplar-cli` installed exemplar", installed.is_file())


def server_json():
    doc = json.loads((ROOT / "packaging" / "server.json").read_text())
    import jsonschema
    import skillsaw

    schema_path = Path(skillsaw.__file__).parent / "schemas" / "mcp_registry" / "v2025_12_11" / "server.schema.json"
    raw = schema_path.read_bytes()
    check("the registry's 2025-12-11 schema is the published one", hashlib.sha256(raw).hexdigest() == SCHEMA_SHA256)
    schema = json.loads(raw)
    check("server.json names the schema it follows", doc.get("$schema") == SCHEMA_URL == schema["$id"], doc.get("$schema"))
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]
    check("server.json is valid against the schema", not errors, errors)
    broken = dict(doc, description="x" * 101)
    check("the schema check rejects an invalid server.json", any(validator.iter_errors(broken)))

    version = re.search(r"-(\d+\.\d+\.\d+)-", WHEEL.name).group(1)
    check("server.json's version is the wheel's", doc["version"] == version, (doc["version"], version))
    pypi = [p for p in doc["packages"] if p["registryType"] == "pypi"]
    check(
        "server.json's pypi package is the wheel",
        len(pypi) == 1 and pypi[0]["identifier"] == PYPI_NAME and pypi[0]["version"] == version,
        pypi,
    )
    project = (ROOT / "packaging" / "python" / "pyproject.toml").read_text()
    check("pyproject names the same package", f'name = "{PYPI_NAME}"' in project)
    readme = (ROOT / "packaging" / "python" / "README.md").read_text()
    check("the wheel's README carries server.json's mcp-name", f"mcp-name: {doc['name']}" in readme)
    with zipfile.ZipFile(WHEEL) as wheel:
        metadata = next(wheel.read(n).decode() for n in wheel.namelist() if n.endswith("METADATA"))
    check("the wheel's metadata (PyPI's page) carries the mcp-name", f"mcp-name: {doc['name']}" in metadata)


async def main():
    await wheel_in_fresh_venv()
    await readme_routes()
    server_json()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


asyncio.run(main())
