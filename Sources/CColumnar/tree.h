/*
 * tree.h — the B+trees that hold tables (keyed by object key) and search indexes (keyed by an ordered value key or a hash).
 * Leaves are clusters: a keys array plus one column leaf per column. See format.h for the node layout.
 *
 * Read path: descend committed nodes in the mapping. Write path: copy the nodes on the way to a leaf into
 * private cc_tnodes (their old nodes go on the to-free list); the commit writes private nodes bottom-up, splitting
 * leaves into clusters of the configured size and inner nodes at CF_INNER_FANOUT children.
 */
#ifndef COLUMNAR_TREE_H
#define COLUMNAR_TREE_H

#include "coll.h"

/* A private leaf is split once an insert takes it past max(CC_LEAF_SPLIT_MIN_ROWS, CC_LEAF_SPLIT_FACTOR x the
 * cluster size), so no leaf a scan can meet holds more than CC_MAX_LEAF_ROWS rows: the larger of that bound and
 * the largest cluster a commit writes (COLUMNAR_MAX_CLUSTER_SIZE). Kernels' masks are sized by it. */
#define CC_LEAF_SPLIT_FACTOR 4u
#define CC_LEAF_SPLIT_MIN_ROWS 1024u
#define CC_MAX_LEAF_ROWS (COLUMNAR_MAX_CLUSTER_SIZE * CC_LEAF_SPLIT_FACTOR)
_Static_assert(COLUMNAR_MAX_CLUSTER_SIZE * CC_LEAF_SPLIT_FACTOR >= CC_LEAF_SPLIT_MIN_ROWS,
               "the split bound of the largest cluster size covers the minimum split size");
_Static_assert(CC_MAX_LEAF_ROWS <= CC_MAX_NARROW_COUNT, "node validation admits narrow arrays as long as any leaf");

/* Reads the committed INNER or CLUSTER node at `ref` with its KEYS child, checking that they agree (an inner
 * node has one key per child, 1 to CF_INNER_FANOUT children; a cluster 1 to CC_MAX_LEAF_ROWS rows). Returns 0 or
 * COLUMNAR_ECORRUPT. */
int cc_tree_node_read(const columnar_txn *txn, uint64_t ref, cc_node *node, cc_node *keys);

/* Finds `key`. On success *found tells whether it exists, and `out` locates it (a private leaf, or a committed
 * cluster and row). */
int cc_tree_find(const columnar_txn *txn, const cc_child *root, int64_t key, cc_rowpos *out, bool *found);
/* Opens the leaf of column `column` (of `type` and `collection`) in the committed cluster at `cluster_ref`;
 * out->values.ref is 0 when the cluster stores no leaf for the column (a column added after the cluster was
 * written: every row holds the default). The caller checks the leaf's count against the rows it reads. */
int cc_cluster_leaf_open(const columnar_txn *txn, uint64_t cluster_ref, uint32_t column, uint8_t type,
                         uint8_t collection, cc_leaf *out);
/* The same in a cluster whose node the caller has read (and validated) already. */
int cc_cluster_node_leaf_open(const columnar_txn *txn, const cc_node *cluster, uint32_t column, uint8_t type,
                              uint8_t collection, cc_leaf *out);
/* Reads column `column` of the row at `pos` into `cell`, which receives cc_cell_bytes of the column's type and
 * collection (8 bytes for an int column, 16 at most). */
int cc_row_get(const columnar_txn *txn, const cc_table_schema *schema, const cc_rowpos *pos, uint32_t column,
               void *cell, bool *is_null);
/* Write path: makes the leaf that holds (or would hold) `key` private. With `insert` and the key absent, inserts
 * a row with default values. *out_found says whether the key existed before. */
int cc_tree_locate(columnar_txn *txn, cc_child *root, const cc_table_schema *schema, int64_t key, bool insert,
                   cc_tnode **out_leaf, uint32_t *out_row, bool *out_found);
/* Removes a row from a private leaf (the caller has released its collections). */
void cc_tree_remove_row(cc_tnode *leaf, uint32_t row);
/* Makes sure a private leaf has a vector for every schema column (new columns get defaults). */
int cc_tree_leaf_fit(cc_tnode *leaf, const cc_table_schema *schema);

/* Writes the private part of the tree; root->ref becomes the new root (0 when empty), root->node NULL. */
int cc_tree_write(cc_emitter *emitter, cc_child *root, const cc_table_schema *schema, uint32_t cluster_size);
/* Frees private memory of a tree (rollback). */
void cc_tree_discard(cc_child *root);
/* Schedules every node of the tree (and every collection its rows hold) to be freed, and clears it. */
int cc_tree_release(columnar_txn *txn, cc_child *root, const cc_table_schema *schema);
/* Calls `visit` for each row in key order (private and committed alike); stops at a non-zero return. */
typedef int (*cc_row_visitor)(void *context, int64_t key, const cc_rowpos *pos);
int cc_tree_each_row(const columnar_txn *txn, const cc_child *root, cc_row_visitor visit, void *context);
/* Makes every leaf of the tree private (for column removal and index builds). */
int cc_tree_materialize_all(columnar_txn *txn, cc_child *root, const cc_table_schema *schema);

/* Cluster seek for iteration: the first cluster (committed or private leaf) holding a key >= `key`. */
typedef struct cc_cluster_pos {
    bool found;
    cc_tnode *leaf;          /* private leaf, or NULL */
    cc_node keys;            /* committed cluster's keys */
    uint64_t cluster_ref;
} cc_cluster_pos;
int cc_tree_seek_cluster(const columnar_txn *txn, const cc_child *root, int64_t key, cc_cluster_pos *out);
/* The cluster holding the tree's largest key (out->found false when the tree is empty). */
int cc_tree_seek_last_cluster(const columnar_txn *txn, const cc_child *root, cc_cluster_pos *out);

void cc_column_vec_init(cc_mvec *vec, const cc_column *column);

#endif
