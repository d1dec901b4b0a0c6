# Everyday entry points. Each target is one command; see README.md.
# The sanitizer builds use their own scratch folders so they never disturb the ordinary .build.

SWIFT ?= swift

.PHONY: test main bench bench-grdb microbench sync-overlap asan crash-long tsan powercut fuzz fuzz-short compaction-kills

# Build and run every test, then the engine tests again without io_uring.
test:
	bash scripts/test.sh

# Build the benchmark harness (release) and run it at quick sizes.
main:
	bash scripts/run-main.sh

# The benchmark harness at full sizes (1,000,000 objects, 2,000 single-object commits).
bench:
	bash scripts/setup.sh
	$(SWIFT) build -c release --product columnar-bench
	"$$($(SWIFT) build -c release --show-bin-path)/columnar-bench"

# The object suite's insert, iteration and lookups against GRDB's record API (a package of its own, so that only
# this target builds GRDB; Benchmarks/GRDBPeer). Pass ARGS=--quick for small sizes.
bench-grdb:
	bash scripts/setup.sh
	cd Benchmarks/GRDBPeer && $(SWIFT) build -c release && .build/release/grdb-peer $(ARGS)

# Whether concurrent fdatasyncs on one file overlap on this machine, without the engine: 1 writer against WRITERS
# (default 8) writers, each through its own open file description, for four write patterns
# (Benchmarks/SyncOverlap; docs/CommitPath.md, "Syncs that overlap"). The probe file goes in PROBE_DIR.
WRITERS ?= 8
PROBE_DIR ?= .build
sync-overlap:
	mkdir -p .build "$(PROBE_DIR)"
	cc -std=c11 -O2 -Wall -Wextra -pthread Benchmarks/SyncOverlap/sync_overlap.c -o .build/sync-overlap
	.build/sync-overlap "$(PROBE_DIR)" $(WRITERS)

# Microbenchmarks of the engine's C API (ordo-one/package-benchmark, Benchmarks/StorageBenchmarks).
microbench:
	bash scripts/setup.sh
	$(SWIFT) package --allow-writing-to-package-directory benchmark

# Damaged-file, write-regression and fuzz-regression tests under AddressSanitizer: a bad file must give an error,
# never an out-of-bounds access, and no write sequence may touch memory it does not own. The inspection tool's
# damaged variants and injected faults run too (its inspector in process, and the tool itself built with ASan).
asan:
	bash scripts/setup.sh
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt \
	$(SWIFT) test --sanitize=address --scratch-path .build-asan \
		--filter "DamagedFileTests|WriteRegressionTests|FuzzRegressionTests|DamagedVariantTests|InjectedFaultTests"

# The crash-recovery test with many more simulated power cuts than the default run.
crash-long:
	bash scripts/setup.sh
	COLUMNAR_CRASH_ITERATIONS=2000 $(SWIFT) test --filter CrashRecoveryTests

# The power-cut campaign: N cuts (default 10,000) of mixed workloads by one or two writer processes through the
# page-cache model (kills, failed syncs, random writeback), each checked against a model of the commits
# (docs/Reliability.md). Release build; SEED picks the run (default: the time).
N ?= 10000
SEED ?= $(shell date +%s)
powercut:
	bash scripts/setup.sh
	$(SWIFT) build -c release --product ColumnarTestWorker
	"$$($(SWIFT) build -c release --show-bin-path)/ColumnarTestWorker" powercut-campaign --cuts $(N) --seed $(SEED) \
		--dir "$${TMPDIR:-/tmp}"

# Readers and writers together, change notifications delivered across threads, queues and processes, the write log
# read while a writer appends, deletion and compaction racing an opener, copies taken while a writer commits,
# projections observed on queues and actors, and readers of an encrypted file while another handle commits, under
# ThreadSanitizer.
tsan:
	bash scripts/setup.sh
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan \
		--filter "ConcurrencyTests|NotificationTests|NotificationMisuseTests|ThreadHandOverTests|FreezingTests|ActorRealmTests|AsyncWriteTests|PatchedResultsTests|Swift6ClientTests|WriteLogTests|FileDeletionTests|CompactionTests|ProjectionTests|NestedMixedCollectionTests|CheckedTemplateThreadTests|EncryptionTests"

# libFuzzer on the storage engine (docs/Reliability.md, "Fuzzing"): builds the target and the seed generator with
# clang under AddressSanitizer and UndefinedBehaviorSanitizer (scratch folder .build-fuzz), writes the seeds with
# this engine, and fuzzes for FUZZ_SECONDS on the seeds plus the persistent corpus Fuzz/corpus; a finding goes to
# Fuzz/findings/.
FUZZ_SECONDS ?= 1800
fuzz:
	bash scripts/fuzz.sh $(FUZZ_SECONDS)

# The same for one minute: a check for CI that the target builds, the seeds are written and nothing is found fast.
fuzz-short:
	bash scripts/fuzz.sh 60

# Compaction killed at random moments: KILLS kills (default 2,000) of a process compacting a file, each followed by
# a check that the file opens at the old or the new state with every object intact (the suite runs 100).
KILLS ?= 2000
compaction-kills:
	bash scripts/setup.sh
	COLUMNAR_COMPACTION_KILLS=$(KILLS) $(SWIFT) test --filter CompactionKillTests
