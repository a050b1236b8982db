#!/usr/bin/env bash
# Drives the MCP Inspector CLI (@modelcontextprotocol/inspector, installed in clients/ by
# scripts/setup.sh) against the local server backed by the built-in fake Kobana, in legacy
# (2025) and modern (2026-07-28) modes: list tools, call a read tool, read a resource, get a
# prompt. Each step must succeed and show the fixture data it should. Then its schema
# portability report (`tools/list --strict`, FH-5): any finding, warning or error, about any
# tool's input or output schema fails the run (the Inspector itself exits non-zero on errors
# only).
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
# inspect MODE ARGS...: the Inspector CLI against the server in MODE, JSON on stdout.
inspect() {
  local mode="$1" target=()
  shift
  if [[ $mode == legacy ]]; then
    target=("$URL" --transport http --header "Authorization: Bearer $TOKEN")
  else
    target=(--config "$WORK/mcp.json" --server kobana)
  fi
  timeout 60 "$NODE" "$INSPECTOR" --cli "${target[@]}" "$@" --format json 2>"$WORK/err"
}

# verdict OK LABEL DETAILS: counts a step, and shows what came when it failed.
verdict() {
  if [[ "$1" == 0 ]]; then
    passed=$((passed + 1))
    echo "inspector $2: ok"
  else
    failed=$((failed + 1))
    echo "inspector $2: FAILED" >&2
    head -c 4000 <<<"$3" >&2
    head -c 2000 "$WORK/err" >&2
  fi
}

check() {
  local mode="$1" needle="$2" out ok=1
  shift 2
  out="$(inspect "$mode" "$@")" && grep -qF -- "$needle" <<<"$out" && ok=0
  verdict "$ok" "$mode $* (wanted $needle)" "$out"
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

# portable MODE: the Inspector's strict portability report for every tool is empty.
portable() {
  local mode="$1" out findings="" ok=1
  out="$(inspect "$mode" --method tools/list --strict)" &&
    findings="$("$NODE" -e '
      const e = JSON.parse(require("fs").readFileSync(0, "utf8"));
      const tools = (e.result && e.result.tools) || [];
      if (tools.length === 0) { console.log("no tools listed"); process.exit(0); }
      for (const t of e.schemaFindings || [])
        for (const f of t.findings) console.log(`${f.severity}: ${t.toolName} ${f.schema}.${f.path}: ${f.issue}`);
    ' <<<"$out")" && [[ -z "$findings" ]] && ok=0
  verdict "$ok" "$mode schema portability (--strict, 0 errors and 0 warnings wanted)" "${findings:-$out}"
}

for mode in legacy modern; do
  portable "$mode"
done
echo "inspector: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
