#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, installed in
# clients/ by scripts/setup.sh) against the local server backed by the built-in fake Kobana,
# at spec versions 2025-06-18, 2025-11-25 and 2026-07-28, with the scenarios that apply to a
# product server. Fails on any check not listed in conformance/expected-failures-<version>.yml.
# Results: results/conformance/<version>/server-<scenario>-<timestamp>/checks.json, plus one
# summary line per version.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SUITE="$ROOT/clients/node_modules/@modelcontextprotocol/conformance/dist/index.js"
OUT="$ROOT/results/conformance"
[[ -f "$SUITE" ]] || { echo "conformance.sh: run scripts/setup.sh first" >&2; exit 1; }
# shellcheck source=scripts/lib/demo-server.sh
source "$ROOT/scripts/lib/demo-server.sh"
URL="http://localhost:$PORT/mcp"

LEGACY="server-initialize ping tools-list resources-list prompts-list completion-complete server-session-lifecycle dns-rebinding-protection"
MODERN="server-stateless caching sep-2164-resource-not-found tools-list resources-list prompts-list completion-complete input-required-result-unsupported-methods dns-rebinding-protection http-header-validation"

rm -rf "$OUT"
status=0
for version in 2025-06-18 2025-11-25 2026-07-28; do
  if [[ $version == 2026-07-28 ]]; then scenarios=$MODERN; else scenarios=$LEGACY; fi
  baseline="$ROOT/conformance/expected-failures-$version.yml"
  args=()
  [[ -f $baseline ]] && args=(--expected-failures "$baseline")
  mkdir -p "$OUT/$version"
  for scenario in $scenarios; do
    if ! "$NODE" "$SUITE" server --url "$URL" --scenario "$scenario" --spec-version "$version" \
      "${args[@]}" -o "$OUT/$version" >"$OUT/$version/$scenario.log" 2>&1; then
      echo "conformance $version $scenario: FAILED (see $OUT/$version/$scenario.log)" >&2
      status=1
    fi
  done
  # shellcheck disable=SC2016 # a JavaScript program, not shell
  "$NODE" -e '
    const fs = require("fs"), path = require("path");
    const [dir, version, baselineFile] = process.argv.slice(1);
    const expected = new Set(fs.existsSync(baselineFile)
      ? fs.readFileSync(baselineFile, "utf8").split("\n").map(l => l.trim())
          .filter(l => l.startsWith("- ")).map(l => l.slice(2).trim()) : []);
    let passed = 0, failed = 0, xfail = 0, other = 0;
    for (const run of fs.readdirSync(dir).filter(d => d.startsWith("server-"))) {
      if (!fs.existsSync(path.join(dir, run, "checks.json"))) { other++; continue; }
      const scenario = run.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
      const checks = JSON.parse(fs.readFileSync(path.join(dir, run, "checks.json"), "utf8"));
      for (const c of checks) {
        if (c.status === "SUCCESS") passed++;
        else if (c.status === "FAILURE") {
          if (expected.has(`${scenario}:${c.id}`) || expected.has(scenario)) xfail++; else failed++;
        } else other++;
      }
    }
    console.log(`conformance ${version}: ${passed} passed, ${failed} failed, ${xfail} expected-failure, ${other} info/skipped (results in ${dir})`);
  ' "$OUT/$version" "$version" "$baseline"
done
exit $status
