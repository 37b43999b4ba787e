#!/usr/bin/env bash
# Builds Weft (configuring on first use) and runs every test: GoogleTest suites and pytest,
# through CTest, in parallel. Tests that need a GPU are reported as skipped without one.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${WEFT_BUILD_DIR:-build}"
[ -f "$BUILD_DIR/build.ninja" ] || cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$BUILD_DIR" -j "$(nproc)"
cd "$BUILD_DIR"
ctest -j "$(nproc)" --output-on-failure --timeout 600 "$@"
