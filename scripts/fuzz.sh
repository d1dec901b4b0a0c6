#!/usr/bin/env bash
# Fuzzes the storage engine with libFuzzer (docs/Reliability.md, "Fuzzing"): builds the target (Fuzz/fuzz_engine.c
# with every engine source, under AddressSanitizer and UndefinedBehaviorSanitizer) and the seed generator with
# clang, writes the seed corpus with the engine being fuzzed (so the seeds have the current file format), and runs
# the target for SECONDS seconds on the seeds plus the persistent corpus in Fuzz/corpus (both git-ignored). New
# inputs that reach new code go to Fuzz/corpus; a crash, leak, timeout or undefined behaviour is written to
# Fuzz/findings/ and stops the run with a non-zero status.
#
#     bash scripts/fuzz.sh [SECONDS]        (default 1800; `make fuzz`, `make fuzz-short` for 60)
#
# Environment: FUZZ_CC (clang), FUZZ_BUILD (.build-fuzz), FUZZ_SANITIZERS (address,undefined), FUZZ_TIMEOUT (seconds
# one input may take, 10), FUZZ_ARGS (more libFuzzer flags).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=${1:-1800}
cc=${FUZZ_CC:-clang}
build=${FUZZ_BUILD:-.build-fuzz}
timeout=${FUZZ_TIMEOUT:-10}
sanitizers=${FUZZ_SANITIZERS:-address,undefined}
corpus=Fuzz/corpus
seeds=Fuzz/seeds
findings=Fuzz/findings

heading() { printf '\n==== %s ====\n' "$*"; }

flags=(-g -O1 -std=c11 -D_GNU_SOURCE -ISources/CColumnar/include -ISources/CColumnar -fno-strict-aliasing
       -fno-omit-frame-pointer -fno-sanitize-recover=undefined -Wall -Wextra -Wno-unused-parameter)
# lld, when the toolchain has it: the system's gold linker warns about every sanitizer symbol it cannot export.
link=()
if "$cc" -fuse-ld=lld -x c /dev/null -shared -o /dev/null 2>/dev/null; then link=(-fuse-ld=lld); fi
sources=(Sources/CColumnar/*.c)

# Builds $1 from the engine and $2 with the sanitizer flags $3, unless it is newer than every source.
build_binary() {
    local out=$1 main=$2 sanitize=$3
    local newest stamp=$out.flags
    newest=$(ls -t "${sources[@]}" Sources/CColumnar/*.h Sources/CColumnar/include/columnar.h "$main" | head -n 1)
    if [[ -x $out && $out -nt $newest && "$(cat "$stamp" 2>/dev/null)" == "$sanitize" ]]; then return 0; fi
    local objects=$build/obj-$(basename "$out")
    mkdir -p "$objects"
    local pids=() objs=()
    for source in "${sources[@]}" "$main"; do
        local obj=$objects/$(basename "${source%.c}").o
        objs+=("$obj")
        "$cc" "${flags[@]}" "$sanitize" -c "$source" -o "$obj" &
        pids+=($!)
        # Two compilers at a time: the machine's cores are shared.
        if ((${#pids[@]} >= 2)); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
    "$cc" "${link[@]}" "${sanitize/-no-link/}" "${objs[@]}" -o "$out" -luring -lcrypto -lpthread
    echo "$sanitize" > "$stamp"
}

heading "build: fuzz target and seed generator ($build)"
mkdir -p "$build"
build_binary "$build/fuzz_engine" Fuzz/fuzz_engine.c "-fsanitize=fuzzer-no-link,$sanitizers"
build_binary "$build/make_seeds" Fuzz/make_seeds.c "-fsanitize=$sanitizers"

heading "seeds: $seeds (written by this build's engine)"
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$findings"
"$build/make_seeds" "$seeds"

heading "fuzz: ${seconds} s"
log=$build/fuzz.log
status=0
# The corpus directory comes first: libFuzzer writes new inputs to the first directory it is given.
"$build/fuzz_engine" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -max_len=262144 \
    -print_final_stats=1 -artifact_prefix="$findings/" ${FUZZ_ARGS:-} "$corpus" "$seeds" 2>&1 | tee "$log" ||
    status=$?

heading "summary"
grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)' "$log" | tail -n 2 || true
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" || true
if ((status != 0)); then
    echo "the fuzzer stopped with status $status; the input is in $findings/ (see the log above)"
fi
exit "$status"
