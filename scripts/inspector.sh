#!/usr/bin/env bash
# Drives the MCP Inspector CLI (@modelcontextprotocol/inspector, installed in clients/ by
# scripts/setup.sh) against the local server backed by the built-in fake Kobana, in legacy
# (2025) and modern (2026-07-28) modes: list tools, call a read tool, read a resource, get a
# prompt. Each step must succeed and show the fixture data it should.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
INSPECTOR="$ROOT/clients/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
[[ -f "$INSPECTOR" ]] || { echo "inspector.sh: run scripts/setup.sh first" >&2; exit 1; }
export MCP_INSPECTOR_SECRET_STORE=memory
# shellcheck source=scripts/lib/demo-server.sh
source "$ROOT/scripts/lib/demo-server.sh"
URL="http://127.0.0.1:$PORT/mcp"
printf '{"mcpServers":{"kobana":{"type":"http","url":"%s","protocolEra":"modern","headers":{"Authorization":"Bearer %s"}}}}\n' \
  "$URL" "$TOKEN" >"$WORK/mcp.json"

passed=0
failed=0
# check MODE NEEDLE ARGS... : runs the Inspector and looks for NEEDLE in its JSON output.
check() {
  local mode="$1" needle="$2"
  shift 2
  local target=()
  if [[ $mode == legacy ]]; then
    target=("$URL" --transport http --header "Authorization: Bearer $TOKEN")
  else
    target=(--config "$WORK/mcp.json" --server kobana)
  fi
  local out
  if out="$(timeout 60 "$NODE" "$INSPECTOR" --cli "${target[@]}" "$@" --format json 2>"$WORK/err")" \
    && grep -qF -- "$needle" <<<"$out"; then
    passed=$((passed + 1))
    echo "inspector $mode $2: ok"
  else
    failed=$((failed + 1))
    echo "inspector $mode $*: FAILED (wanted $needle)" >&2
    head -c 2000 <<<"$out" >&2
    head -c 2000 "$WORK/err" >&2
  fi
}

for mode in legacy modern; do
  check "$mode" '"billing_invoices_void"' --method tools/list
  # MCP Apps (UI-3): each linked tool's view, read as a host would (era 2026 declares the
  # extension with --advertise-apps; era 2025 is always linked).
  check "$mode" '"resourceUri":"ui://kobana/invoice"' --method tools/call --tool-name billing_invoices_get --app-info --advertise-apps
  check "$mode" '"resourceUri":"ui://kobana/customer"' --method tools/call --tool-name billing_customers_get --app-info --advertise-apps
  check "$mode" '"resourceUri":"ui://kobana/month"' --method tools/call --tool-name billing_reports_month --app-info --advertise-apps
  check "$mode" 'Padaria P' --method tools/call --tool-name billing_customers_list --tool-arg per_page=10
  check "$mode" 'Acme Software Ltda' --method resources/read --uri kobana://billing/organization
  check "$mode" 'billing_invoices_list' --method prompts/get --prompt-name monthly_billing_summary --prompt-args month=2026-08
done
echo "inspector: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
