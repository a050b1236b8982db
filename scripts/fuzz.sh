#!/usr/bin/env bash
# Fuzzes the request path: body bytes + header choices -> kobana_mcp::App::handle, in process,
# against the fake Kobana (target `request` in fuzz/, see fuzz/fuzz_targets/request.rs).
#
#   scripts/fuzz.sh              smoke: build, then 45 s (what the test command runs)
#   scripts/fuzz.sh --long       30 min, the documented longer run (docs/reliability.md)
#   scripts/fuzz.sh --time 600   any number of seconds
#   scripts/fuzz.sh --build      only install cargo-fuzz and build the target (the test command
#                                does this in the background while it builds the workspace)
#   scripts/fuzz.sh --run        only run (after --build)
#
# Runs on the stable toolchain: `cargo fuzz` with `--sanitizer none` (libFuzzer's coverage
# instrumentation needs no nightly flag; AddressSanitizer would, and safe Rust gains little
# from it) and `--dev` (debug build, like the rest of the project). The corpus grows in
# fuzz/corpus/request (not committed); fuzz/seeds/request holds the committed seeds. A crash
# is written to fuzz/artifacts/request/ and makes this script exit non-zero; replay one with
#   cargo fuzz run --dev -s none request fuzz/artifacts/request/crash-…
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

SECONDS_TO_RUN=45
BUILD=1
RUN=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --long) SECONDS_TO_RUN=1800 ;;
    --time) shift; SECONDS_TO_RUN="${1:?--time needs a number of seconds}" ;;
    --build) RUN=0 ;;
    --run) BUILD=0 ;;
    *) echo "usage: scripts/fuzz.sh [--long | --time SECONDS] [--build | --run]" >&2; exit 2 ;;
  esac
  shift
done
# The flags both steps pass, so that `run` finds `build`'s artifact up to date.
FUZZ_FLAGS=(--dev --sanitizer none)

CARGO_FUZZ_VERSION=0.13.2
if ! cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
  echo "==> installing cargo-fuzz $CARGO_FUZZ_VERSION from crates.io"
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi

if [[ $BUILD == 1 ]]; then
  echo "==> cargo fuzz build request (stable, debug, no sanitizer)"
  cargo fuzz build "${FUZZ_FLAGS[@]}" request
fi
[[ $RUN == 1 ]] || exit 0

mkdir -p fuzz/corpus/request fuzz/artifacts/request
echo "==> cargo fuzz run request for ${SECONDS_TO_RUN} s (stable, debug, no sanitizer)"
cargo fuzz run "${FUZZ_FLAGS[@]}" request fuzz/corpus/request fuzz/seeds/request -- \
  -dict=fuzz/request.dict \
  -max_total_time="$SECONDS_TO_RUN" \
  -max_len=8192 \
  -timeout=30 \
  -rss_limit_mb=2048 \
  -print_final_stats=1
echo "==> fuzz: no crash in ${SECONDS_TO_RUN} s"
