#!/usr/bin/env bash
# Lint the SAM template offline: cfn-lint, then `sam validate --lint`. Exits non-zero on any
# finding (errors, warnings and informational findings alike).
#
#   scripts/check-template.sh [TEMPLATE]      (default: template.yaml)
#
# The SAM CLI lives in its own venv, .venv-sam, because aws-sam-cli pins boto3 < 1.44,
# click 8.1 and pydantic 2.13, which conflict with the frozen packages of .venv
# (clients/requirements.txt). It is installed on first use (~1-2 min) and reused after.
# .venv-sam sits beside .venv, not inside it: scripts/test.sh runs this script and
# scripts/setup.sh side by side, and setup.sh may remove and re-create .venv (a broken or
# missing interpreter) while this script installs; neither touches the other's directory.
#
# Never contacts AWS: a region is set for the CLI, credentials are dummies, and the EC2
# metadata endpoint is disabled.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

TEMPLATE="${1:-template.yaml}"
SAM_VENV="${SAM_VENV:-$ROOT/.venv-sam}"
SAM_CLI_VERSION="1.170.0"
CFN_LINT_VERSION="1.58.0"
PYTHON="${PYTHON:-python3}"

die() {
  printf 'check-template.sh: error: %s\n' "$*" >&2
  exit 1
}

installed_version() {
  "$SAM_VENV/bin/python" -c "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))" "$1" \
    2>/dev/null || true
}

if [[ "$(installed_version aws-sam-cli)" != "$SAM_CLI_VERSION" ||
  "$(installed_version cfn-lint)" != "$CFN_LINT_VERSION" ]]; then
  command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found; install Python >= 3.10"
  echo "check-template: installing aws-sam-cli==$SAM_CLI_VERSION and cfn-lint==$CFN_LINT_VERSION into ${SAM_VENV#"$ROOT"/}..."
  if [[ ! -x "$SAM_VENV/bin/python" ]]; then
    "$PYTHON" -m venv "$SAM_VENV" || die "cannot create the venv $SAM_VENV"
  fi
  "$SAM_VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    "aws-sam-cli==$SAM_CLI_VERSION" "cfn-lint==$CFN_LINT_VERSION" ||
    die "pip install of aws-sam-cli/cfn-lint failed"
fi

# Offline only: a region for the CLI, dummy credentials, no instance metadata lookups.
export AWS_DEFAULT_REGION=us-east-1
export AWS_REGION=us-east-1
export AWS_EC2_METADATA_DISABLED=true
export AWS_ACCESS_KEY_ID=test
export AWS_SECRET_ACCESS_KEY=test
export SAM_CLI_TELEMETRY=0

status=0

[[ -f "$TEMPLATE" ]] || die "no template at $TEMPLATE"

echo "==> cfn-lint --include-checks I $TEMPLATE"
if ! "$SAM_VENV/bin/cfn-lint" --include-checks I --format parseable -- "$TEMPLATE"; then
  echo "check-template: cfn-lint reported findings" >&2
  status=1
fi

echo "==> sam validate --lint"
# `sam validate` prints findings but may still exit 0 for some of them: check both.
if ! output="$("$SAM_VENV/bin/sam" validate --lint --template-file "$TEMPLATE" 2>&1)"; then
  status=1
fi
printf '%s\n' "$output"
if ! grep -q "is a valid SAM Template" <<<"$output"; then
  echo "check-template: sam validate --lint did not report a valid template" >&2
  status=1
fi

if [[ "$status" -eq 0 ]]; then
  echo "check-template: $TEMPLATE is clean"
fi
exit "$status"
