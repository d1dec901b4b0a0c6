#!/usr/bin/env bash
# The test command: installs what is missing, builds everything with the tests (debug), runs every test, then
# runs the storage engine's tests again with io_uring turned off so the pwrite + fdatasync commit path is tested
# too. Fails if any phase fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

heading() { printf '\n==== %s ====\n' "$*"; }

heading "setup: system packages"
bash scripts/setup.sh

heading "build: swift build --build-tests (debug)"
swift build --build-tests

heading "test: swift test (every test target)"
swift test --skip-build

heading "test: CColumnarTests again with COLUMNAR_NO_IO_URING=1 (pwrite commit path)"
COLUMNAR_NO_IO_URING=1 swift test --skip-build --filter CColumnarTests

heading "all test phases passed"
