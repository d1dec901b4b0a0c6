#!/usr/bin/env bash
# Installs the system packages Columnar builds against, if any are missing: liburing (io_uring commit path),
# SQLite (benchmarks and differential tests), LMDB (the object suite's key-value peer), pkg-config (finds both for
# SwiftPM), libssl-dev (libcrypto: the cipher and MAC of encrypted files) and librsvg2-bin (rsvg-convert: the
# inspection tests render `columnar-inspect space --svg` to PNG). The Swift toolchain, which brings clang, must
# already be installed. Safe to run any number of times.
set -euo pipefail

packages=(liburing-dev libsqlite3-dev liblmdb-dev libssl-dev pkg-config librsvg2-bin)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg -s "$package" 2>/dev/null | grep -q '^Status: install ok installed'; then
        missing+=("$package")
    fi
done

if ((${#missing[@]} > 0)); then
    echo "setup: installing ${missing[*]}"
    if [[ $(id -u) -eq 0 ]]; then
        as_root=()
    elif command -v sudo >/dev/null; then
        as_root=(sudo)
    else
        echo "setup: missing ${missing[*]}, and neither root nor sudo is available to install them" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${as_root[@]}" apt-get update
    "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

for tool in swift clang; do
    if ! command -v "$tool" >/dev/null; then
        echo "setup: '$tool' not found: install the Swift toolchain (6.1 or later; it includes clang)" >&2
        exit 1
    fi
done
echo "setup: system packages present (${packages[*]}); $(swift --version 2>/dev/null | head -n 1)"
