/*
 * recovery.h — choosing the version a file opens at, and bringing the chain of written versions back to a known
 * durable state after a death or a failed sync (docs/CommitPath.md, "Recovery" and "Repair").
 *
 * A version is whole when its slot is usable, its TOP node and commit record pass their checksums, and every
 * range the record lists matches its CRC. Recovery takes the highest whole version at or above the durable one.
 * A repair then rewrites what that version depends on (every listed range, its top, its record and its slot)
 * from the page cache, zeroes the slots of the versions above it, and makes it durable with one fdatasync of
 * its own: the pages may have been written by a process that died, or whose failed sync already consumed the
 * error, so only a rewrite followed by a sync this process sees succeed proves them durable.
 */
#ifndef COLUMNAR_RECOVERY_H
#define COLUMNAR_RECOVERY_H

#include "header.h"
#include "internal.h"

/* Checks that the version `slot` names is whole in `base` (the file mapped for at least slot->used_size bytes).
 * Returns 0, or COLUMNAR_ECORRUPT with the reason in `problem` (nothing is recorded in columnar_last_error). */
int cc_version_verify(const uint8_t *base, const cf_slot *slot, char *problem, size_t problem_size);

/* Finds the version the file opens at: the highest whole version not below `durable` (0: any). With
 * `can_write`, repairs it as described above (the caller holds the writer lock, or is the fresh opener alone
 * with the lock file); `kind` CC_REPAIR_INVALIDATE drops every version above `durable` instead of verifying
 * them. Records the chosen version in the lock file (when there is one): chain, durable (after a repair),
 * published. Fills *out_state. Returns 0, COLUMNAR_ECORRUPT (no whole version), or the I/O error of the repair
 * (the lock file then marks the storage failed). */
int cc_recover(columnar_db *db, cc_repair_kind kind, uint64_t durable, bool can_write, cc_version_state *out_state);

#endif /* COLUMNAR_RECOVERY_H */
