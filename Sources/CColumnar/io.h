/*
 * io.h — the engine's I/O layer: the real implementation behind struct columnar_io (io_uring with a
 * pwritev fallback) and the fault-injecting one used by tests (columnar_faultio_*, declared in columnar.h).
 *
 * Only the commit path writes, and it writes only through a columnar_io table: node batches, the header, syncs
 * and file growth. Reads never go through this layer: they come from the shared read-only mapping.
 */
#ifndef COLUMNAR_IO_H
#define COLUMNAR_IO_H

#include "columnar.h"

#include <stdbool.h>
#include <stddef.h>

/* Tells the I/O layer that the engine reached `step` (a testing hook: it may kill the process or cut the power). */
static inline void cc_io_step(const columnar_io *io, columnar_step step) {
    if (io->step) io->step(io->context, step);
}

/* The real I/O layer of one open database. */
typedef struct cc_real_io {
    columnar_io io;            /* the table handed to the commit path; context points back here */
    bool uring_active;         /* writes go through io_uring */
    char description[96];      /* "io_uring", "pwrite", "pwrite (io_uring: <why>)", "pwrite (turned off)" */
    void *uring;               /* struct io_uring *, owned; NULL when not in use */
    bool ring_always;          /* COLUMNAR_IO_URING_WRITES=always: every large batch through the ring, unmeasured */
} cc_real_io;

/* Sets up the real I/O layer. With `want_uring`, probes io_uring (queue init); when the kernel or a sandbox
 * refuses it, says why once on stderr (per process) and falls back to pwritev. Never fails: returns 0. */
int cc_real_io_init(cc_real_io *real_io, bool want_uring);
void cc_real_io_destroy(cc_real_io *real_io);

/* The fault layer forwards to a real layer it owns; this lets columnar_open tell it which (io_uring or not). */
void cc_faultio_attach(columnar_faultio *faultio, bool want_uring);
/* Whether a faultio's underlying real layer uses io_uring, and its description. */
const cc_real_io *cc_faultio_real(const columnar_faultio *faultio);
bool cc_io_is_faultio(const columnar_io *io);
columnar_faultio *cc_faultio_from_io(const columnar_io *io);

#endif /* COLUMNAR_IO_H */
