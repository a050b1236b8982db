#!/usr/bin/env bash
# Fuzzes the request path: body bytes + header choices -> kobana_mcp::App::handle, in process,
# against the fake Kobana (target `request` in fuzz/, see fuzz/fuzz_targets/request.rs).
#
#   scripts/fuzz.sh              smoke: build, then 45 s (what the test command runs)
#   scripts/fuzz.sh --long       30 min, the documented longer run (docs/reliability.md)
#   scripts/fuzz.sh --time 600   any number of seconds
#   scripts/fuzz.sh --build      only build the target (the test command does this in the
#                                background while it builds the workspace)
#   scripts/fuzz.sh --run        only run (the build before it is a no-op after --build)
#
# libFuzzer is the fuzzer (libfuzzer-sys links it into the target), on the stable toolchain,
# built and run the way `cargo fuzz build/run --dev --sanitizer none request` (cargo-fuzz
# 0.13.2) does it, without cargo-fuzz itself: on a clean machine `cargo install cargo-fuzz`
# compiles 56 crates in release mode (64 s of CPU measured here, taken from the workspace
# build it runs beside on 2 cores) only to run two commands. This script runs them:
#   - build: `cargo build --manifest-path fuzz/Cargo.toml --target <host> --bin request`, debug
#     (cargo-fuzz's `--dev`), with the RUSTFLAGS below: cargo-fuzz's instrumentation
#     (src/project.rs, BuildOptions → rustflags) for `--dev --sanitizer none` on Linux, in its
#     order, the caller's RUSTFLAGS after them. `--target` keeps them off build scripts and
#     proc macros, as cargo-fuzz does. `cargo fuzz build --dev -s none request` after this
#     script finds the target up to date: the same flags, the same artifact.
#   - run: the binary itself, `-artifact_prefix=fuzz/artifacts/request/`, the libFuzzer
#     options, then the corpora (what `cargo fuzz run` passes, in its order).
# No sanitizer: libFuzzer's coverage instrumentation needs no nightly flag, AddressSanitizer
# would (`-Zsanitizer`), and safe Rust gains little from it. The target directory is
# fuzz/target whatever CARGO_TARGET_DIR says, so this build never waits on the workspace's.
#
# The corpus grows in fuzz/corpus/request (not committed); fuzz/seeds/request holds the
# committed seeds. A crash is written to fuzz/artifacts/request/ and makes this script exit
# non-zero; replay one with
#   fuzz/target/x86_64-unknown-linux-gnu/debug/request fuzz/artifacts/request/crash-…
# (or, with cargo-fuzz installed, `cargo fuzz run --dev -s none request <file>`).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

SECONDS_TO_RUN=45
RUN=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --long) SECONDS_TO_RUN=1800 ;;
    --time) shift; SECONDS_TO_RUN="${1:?--time needs a number of seconds}" ;;
    --build) RUN=0 ;;
    --run) ;;
    *) echo "usage: scripts/fuzz.sh [--long | --time SECONDS] [--build | --run]" >&2; exit 2 ;;
  esac
  shift
done

HOST="$(rustc -vV | sed -n 's/^host: //p')"
[[ -n "$HOST" ]] || { echo "fuzz.sh: cannot read the host triple from rustc -vV" >&2; exit 1; }
# cargo-fuzz 0.13.2's flags for `--dev --sanitizer none` on a Linux host, in its order.
SANCOV_FLAGS=(
  -Cpasses=sancov-module
  -Cllvm-args=-sanitizer-coverage-level=4
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters
  -Cllvm-args=-sanitizer-coverage-pc-table
  -Cllvm-args=-sanitizer-coverage-trace-compares
  --cfg fuzzing
  -Cllvm-args=-simplifycfg-branch-fold-threshold=0
  -Cllvm-args=-sanitizer-coverage-stack-depth
  -Cdebug-assertions
)
FUZZ_TARGET_DIR="$ROOT/fuzz/target"
BIN="$FUZZ_TARGET_DIR/$HOST/debug/request"

echo "==> build: the request target with libFuzzer's instrumentation (stable, debug, no sanitizer)"
RUSTFLAGS="${SANCOV_FLAGS[*]} ${RUSTFLAGS:-}" cargo build --manifest-path "$ROOT/fuzz/Cargo.toml" \
  --target "$HOST" --target-dir "$FUZZ_TARGET_DIR" --bin request
[[ -x "$BIN" ]] || { echo "fuzz.sh: no $BIN after the build" >&2; exit 1; }
[[ $RUN == 1 ]] || exit 0

mkdir -p fuzz/corpus/request fuzz/artifacts/request
echo "==> run: the request target under libFuzzer for ${SECONDS_TO_RUN} s"
if ! "$BIN" -artifact_prefix="$ROOT/fuzz/artifacts/request/" \
  -dict=fuzz/request.dict \
  -max_total_time="$SECONDS_TO_RUN" \
  -max_len=8192 \
  -timeout=30 \
  -rss_limit_mb=2048 \
  -print_final_stats=1 \
  fuzz/corpus/request fuzz/seeds/request; then
  echo "fuzz.sh: libFuzzer stopped on a failing input (fuzz/artifacts/request/ above);" \
    "replay it with $BIN <file>" >&2
  exit 1
fi
echo "==> fuzz: no crash in ${SECONDS_TO_RUN} s"
