/*
 * durability.h — making written versions durable and giving them to readers (docs/CommitPath.md, "Group
 * commit" and "A failed sync").
 *
 * A commit writes its version under the writer lock (commit.c) and releases it; then, with durability FULL, it
 * waits until a sync that started after its write has succeeded. Whoever finds no sync under way leads one: it
 * reads the latest written version, calls fdatasync once, and on success raises the durable version to it and
 * publishes it, so every committer that wrote before the sync began returns at once (group commit, across
 * threads and processes). A failed sync is never retried: the versions it covered fail, the chain's epoch moves
 * on so nothing more is built on them, and a repair zeroes their slots and syncs before any committer reports
 * the failure, so a commit that reports failure can never turn up after a crash.
 */
#ifndef COLUMNAR_DURABILITY_H
#define COLUMNAR_DURABILITY_H

#include "commit.h"

/* The latest durable version (every version up to it is on stable storage). */
uint64_t cc_durable_version(columnar_db *db);

/* With the writer lock held: makes everything written so far durable (every version named, and the nodes of a
 * commit not named yet), leading a sync of its own (after waiting for a sync under way). Runs any repair a dead
 * leader or a failed sync calls for. Returns 0, or the sync's error (the failed versions are then gone from the
 * file).
 *
 * With `nodes_pending` (a large commit's nodes are written and its slot is not), a repair on the way fails the
 * commit instead of syncing again: the sync that failed (or whose leader died) may have marked those nodes' pages
 * clean without writing them, and a later sync would then report them durable while the disk lacks them. */
int cc_durability_sync_written(columnar_db *db, bool nodes_pending);

/* After the writer lock is released: finishes the commit of `written` as the database's durability asks. FULL
 * waits until it is durable (leading a sync when none is under way) and published; UNSAFE publishes it at once;
 * in-memory databases count it durable at once. Returns 0 or the error that kept it from the database. */
int cc_durability_complete(columnar_db *db, const cc_written *written);

/* Takes the writer lock, runs the repair the lock file asks for (if any), and releases it. */
int cc_repair_now(columnar_db *db);

#endif /* COLUMNAR_DURABILITY_H */
