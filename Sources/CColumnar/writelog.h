/*
 * writelog.h — the write log in the lock file's shared memory: what commits set, for change notifications
 * (columnar.h, "Write log"; writelog.c for the protocol).
 */
#ifndef COLUMNAR_WRITELOG_H
#define COLUMNAR_WRITELOG_H

#include "internal.h"

/* Called by the commit while it holds the writer lock, before it names `version`: when the log is enabled and
 * the transaction logged nothing, records that its commit set nothing (which supersedes an entry a failed commit
 * of the same version left). */
void cc_write_log_note_commit(columnar_txn *txn, uint64_t version);

#endif
