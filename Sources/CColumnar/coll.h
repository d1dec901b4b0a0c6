/*
 * coll.h — collections (lists, sets, dictionaries, and the backlink lists kept per link column): their on-disk
 * B+tree of column leaves (format.h "Collection root") and their private form in a write transaction.
 *
 * A write transaction that changes a collection copies all its elements into a cc_mcoll and frees the old
 * nodes; its commit writes the elements anew in leaves of up to CF_COLL_LEAF_MAX with LIST_INNER nodes above.
 * Reading never copies: an element is found by descending the cumulative counts.
 */
#ifndef COLUMNAR_COLL_H
#define COLUMNAR_COLL_H

#include "leaf.h"

/* The shape of a collection's elements. */
typedef struct cc_elemtype {
    uint8_t type;
    uint8_t collection;  /* LIST, SET or DICT */
    bool nullable;
} cc_elemtype;

/* Number of elements of the committed collection at `ref` (0 for ref 0). */
int cc_coll_count(const columnar_txn *txn, uint64_t ref, cc_elemtype elem, uint64_t *out_count);
/* Element `index` of the committed collection (for a dictionary: of its values; keys with `keys`). */
int cc_coll_get(const columnar_txn *txn, uint64_t ref, cc_elemtype elem, bool keys, uint64_t index, void *cell,
                bool *is_null);
/* Copies the committed collection in `cell` into private memory (no-op when already private) and schedules its
 * nodes to be freed. */
int cc_coll_materialize(columnar_txn *txn, cc_collcell *cell, cc_elemtype elem);
/* Writes a private collection; *out_ref is 0 for an empty one. Frees the private copy. */
int cc_coll_write(cc_emitter *emitter, cc_mcoll *coll, cc_elemtype elem, uint64_t *out_ref);
void cc_mcoll_free(cc_mcoll *coll);
/* Frees a whole cell: its private copy, or schedules its committed nodes to be freed. */
int cc_collcell_release(columnar_txn *txn, cc_collcell *cell, cc_elemtype elem);
/* Element count of a cell (private or committed). */
int cc_collcell_count(const columnar_txn *txn, const cc_collcell *cell, cc_elemtype elem, uint64_t *out_count);
/* Element of a cell (private or committed). */
int cc_collcell_get(const columnar_txn *txn, const cc_collcell *cell, cc_elemtype elem, bool keys, uint64_t index,
                    void *out_cell, bool *is_null);

#endif
