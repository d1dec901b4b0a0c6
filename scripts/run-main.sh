#!/usr/bin/env bash
# The main job: builds the comparative benchmark harness (release) and runs it at quick sizes, printing one
# table of Columnar against SQLite. For the full sizes use `make bench`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
swift build -c release --product columnar-bench
"$(swift build -c release --show-bin-path)/columnar-bench" --quick "$@"
