/*
 * leaf.h — column leaves: the values of one column for the rows of a cluster, or the elements of one collection
 * leaf, in the per-type encodings of format.h (bit-packed ints, fixed floats, short or long strings, fixed-width
 * ids, refs to collections) with an optional null bitmap.
 */
#ifndef COLUMNAR_LEAF_H
#define COLUMNAR_LEAF_H

#include "node.h"

typedef struct cc_leaf {
    uint8_t type;
    uint8_t collection;
    bool long_strings;
    uint32_t count;
    cc_node values;     /* VALUES */
    cc_node second;     /* BLOB (long strings) or nanoseconds (timestamps); ref 0 otherwise */
    cc_node nulls;      /* NULLS, ref 0 when no element is null */
} cc_leaf;

/* A column leaf opened for a committed cluster, remembered by the read path (see columnar_txn.leaf_cache). */
#define CC_LEAF_CACHE_SLOTS 64u
typedef struct cc_leaf_cache_entry {
    uint64_t cluster_ref;   /* 0: empty slot */
    uint32_t column;
    uint32_t cluster_rows;
    cc_leaf leaf;           /* leaf.values.ref == 0: the cluster stores no leaf for the column (all default) */
} cc_leaf_cache_entry;

/* Opens and validates the COLUMN node at `ref` holding values of `type` (collection cells when `collection`). */
int cc_leaf_open(const columnar_txn *txn, uint64_t ref, uint8_t type, uint8_t collection, cc_leaf *out);
/* Decodes element `index` (< count) into a cell of the mvec layout, cc_cell_bytes(type, collection) bytes;
 * *is_null set for nulls.
 * Returns 0 or COLUMNAR_ECORRUPT (bad string offsets or lengths, bad nanoseconds). */
int cc_leaf_get(const cc_leaf *leaf, uint32_t index, void *cell, bool *is_null);
/* Appends elements [from, from+count) of the leaf to `vec`. */
int cc_leaf_append(const cc_leaf *leaf, uint32_t from, uint32_t count, cc_mvec *vec);
/* Whether rows [from, from+count) all hold the value a reader gives a cluster that stores no leaf for the column. */
bool cc_leaf_rows_default(const cc_mvec *vec, uint32_t from, uint32_t count);
/* Writes rows [from, from+count) of `vec` as a COLUMN node. Collection cells must already be clean (ref). */
int cc_leaf_write(cc_emitter *emitter, const cc_mvec *vec, uint32_t from, uint32_t count, uint64_t *out_ref);
/* Schedules the leaf's own nodes (not collections it refers to) to be freed. */
int cc_leaf_free(columnar_txn *txn, uint64_t ref);

/* Value order used by sets and sorting inside the engine: null first, then by value (strings bytewise,
 * doubles with NaN after all numbers). Returns <0, 0, >0. */
int cc_cell_compare(uint8_t type, const void *a, bool a_null, const void *b, bool b_null);
/* Converts between the public value and a cell. */
void cc_cell_from_value(uint8_t type, const columnar_value *value, void *cell);
void cc_value_from_cell(uint8_t type, const void *cell, bool is_null, columnar_value *out);

#endif /* COLUMNAR_LEAF_H */
