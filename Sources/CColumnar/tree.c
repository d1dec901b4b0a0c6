/*
 * tree.c — table and index B+trees: lookup in committed nodes, copy-on-write into private nodes, and the
 * commit-time encoding of private nodes into clusters and inner nodes (see tree.h).
 */
#include "tree.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct cc_out {
    int64_t first_key;
    uint64_t ref;
} cc_out;

typedef struct cc_outvec {
    cc_out *items;
    size_t count;
    size_t capacity;
} cc_outvec;

static int outvec_push(cc_outvec *vec, int64_t first_key, uint64_t ref) {
    if (vec->count == vec->capacity) {
        size_t capacity = vec->capacity ? vec->capacity * 2 : 64;
        cc_out *grown = realloc(vec->items, capacity * sizeof *grown);
        if (!grown) return -ENOMEM;
        vec->items = grown;
        vec->capacity = capacity;
    }
    vec->items[vec->count++] = (cc_out){ first_key, ref };
    return 0;
}

void cc_column_vec_init(cc_mvec *vec, const cc_column *column) {
    bool nullable = (column->flags & CF_COL_FLAG_NULLABLE) != 0;
    cc_mvec_init(vec, column->type, column->collection, nullable);
    vec->removed = !cc_column_is_live(column);
}

static cc_elemtype column_elem(const cc_column *column) {
    return (cc_elemtype){ column->type, column->collection, (column->flags & CF_COL_FLAG_NULLABLE) != 0 };
}

/* The child to descend into for `key`: the last whose first key is <= key, or the first. */
static uint32_t route_private(const cc_tnode *inner, int64_t key) {
    uint32_t low = 0, high = inner->count;
    while (low < high) {
        uint32_t mid = low + (high - low) / 2;
        if ((int64_t)inner->keys[mid] <= key) low = mid + 1;
        else high = mid;
    }
    return low ? low - 1 : 0;
}

/* The same for a committed inner node: the element before the first above the key. */
static uint64_t route_packed(const cc_node *keys, int64_t key) {
    uint64_t above = key == INT64_MAX ? keys->count : cc_packed_lower_bound(keys, key + 1);
    return above ? above - 1 : 0;
}

static uint32_t lower_bound_private(const cc_tnode *leaf, int64_t key) {
    uint32_t low = 0, high = leaf->count;
    while (low < high) {
        uint32_t mid = low + (high - low) / 2;
        if ((int64_t)leaf->keys[mid] < key) low = mid + 1;
        else high = mid;
    }
    return low;
}

int cc_tree_node_read(const columnar_txn *txn, uint64_t ref, cc_node *node, cc_node *keys) {
    int rc = cc_node_read(txn, ref, 0, node);
    if (rc) return rc;
    if ((node->role != CF_ROLE_INNER && node->role != CF_ROLE_CLUSTER) ||
        node->encoding != COLUMNAR_ENCODING_REFS || node->count < 1)
        return CC_CORRUPT(ref, "tree node at %llu is neither an inner node nor a cluster (role %u)",
                          (unsigned long long)ref, node->role);
    rc = cc_node_child(txn, node, 0, CF_ROLE_KEYS, false, keys);
    if (rc) return rc;
    if (keys->encoding != COLUMNAR_ENCODING_PACKED_INT)
        return CC_CORRUPT(keys->ref, "key array at %llu is not a packed int array", (unsigned long long)keys->ref);
    if (node->role == CF_ROLE_INNER && (keys->count != node->count - 1 || keys->count == 0))
        return CC_CORRUPT(ref, "inner node at %llu has %u children but %u keys", (unsigned long long)ref,
                          node->count - 1, keys->count);
    /* Counts are bounded by what a writer makes, so that no count from the file drives a loop or an allocation
     * past it: a key array of width 0 has an empty payload whatever count its header claims. */
    if (node->role == CF_ROLE_INNER && keys->count > CF_INNER_FANOUT)
        return CC_CORRUPT(ref, "inner node at %llu has %u children, more than the %u a writer makes",
                          (unsigned long long)ref, keys->count, CF_INNER_FANOUT);
    if (node->role == CF_ROLE_CLUSTER && (keys->count == 0 || keys->count > CC_MAX_LEAF_ROWS))
        return CC_CORRUPT(ref, "cluster at %llu has %u rows (a writer makes 1 to %u)", (unsigned long long)ref,
                          keys->count, CC_MAX_LEAF_ROWS);
    return 0;
}

int cc_tree_find(const columnar_txn *txn, const cc_child *root, int64_t key, cc_rowpos *out, bool *found) {
    *found = false;
    memset(out, 0, sizeof *out);
    const cc_child *child = root;
    for (uint32_t depth = 0; depth < CF_MAX_TREE_DEPTH; depth++) {
        if (child->node) {
            cc_tnode *n = child->node;
            if (n->is_leaf) {
                uint32_t row = lower_bound_private(n, key);
                *found = row < n->count && (int64_t)n->keys[row] == key;
                out->leaf = n;
                out->row = row;
                return 0;
            }
            if (n->count == 0) return 0;
            child = &n->children[route_private(n, key)];
            continue;
        }
        if (child->ref == 0) return 0;
        cc_node node, keys;
        int rc = cc_tree_node_read(txn, child->ref, &node, &keys);
        if (rc) return rc;
        if (node.role == CF_ROLE_CLUSTER) {
            uint64_t row = cc_packed_lower_bound(&keys, key);
            *found = row < keys.count && cc_node_int_at(&keys, row) == key;
            out->cluster_ref = node.ref;
            out->row = (uint32_t)row;
            if (!txn->is_write) {
                /* Committed nodes of a read transaction's version never change (see cc_row_get). */
                columnar_txn *mutable_txn = (columnar_txn *)txn;
                mutable_txn->recent_cluster = node;
                mutable_txn->recent_cluster_keys = keys;
            }
            return 0;
        }
        uint64_t next = cc_node_ref_at(&node, (uint32_t)route_packed(&keys, key) + 1);
        if (next == 0) return CC_CORRUPT(node.ref, "inner node at %llu has a null child", (unsigned long long)node.ref);
        /* Continue in the committed tree without a private node. */
        static _Thread_local cc_child scratch;
        scratch.ref = next;
        scratch.node = NULL;
        child = &scratch;
    }
    return CC_CORRUPT(root->ref, "tree deeper than %u levels (a ref cycle?)", CF_MAX_TREE_DEPTH);
}

/* The value of a row whose cluster stores no leaf for the column. Writes the column's cell size only
 * (cc_cell_bytes): callers size their buffers for the column they read, an int64_t for an int column. */
static void default_cell(const cc_column *column, void *cell, bool *is_null) {
    memset(cell, 0, cc_cell_bytes(column->type, column->collection));
    *is_null = column->collection == COLUMNAR_COLLECTION_NONE && (column->flags & CF_COL_FLAG_NULLABLE);
}

int cc_row_get(const columnar_txn *txn, const cc_table_schema *schema, const cc_rowpos *pos, uint32_t column,
               void *cell, bool *is_null) {
    const cc_column *col = &schema->columns[column];
    if (pos->leaf) {
        if (column >= pos->leaf->column_count || pos->leaf->columns[column].removed) {
            default_cell(col, cell, is_null);
            return 0;
        }
        const cc_mvec *vec = &pos->leaf->columns[column];
        memcpy(cell, cc_mvec_cell(vec, pos->row), vec->cell_bytes);
        *is_null = cc_mvec_is_null(vec, pos->row);
        return 0;
    }
    /* Committed nodes of a read transaction's version never change, so an opened leaf can be reused. (A write
     * transaction reads committed clusters too, but may free and rewrite them: it does not cache.) */
    columnar_txn *mutable_txn = (columnar_txn *)txn;
    cc_leaf_cache_entry *slot = NULL;
    if (!txn->is_write) {
        if (!mutable_txn->leaf_cache &&
            !(mutable_txn->leaf_cache = calloc(CC_LEAF_CACHE_SLOTS, sizeof *mutable_txn->leaf_cache)))
            return -ENOMEM;
        slot = &mutable_txn->leaf_cache[((pos->cluster_ref >> 3) * 31 + column) % CC_LEAF_CACHE_SLOTS];
        if (slot->cluster_ref == pos->cluster_ref && slot->column == column) {
            if (!slot->leaf.values.ref) {
                default_cell(col, cell, is_null);
                return 0;
            }
            if (pos->row >= slot->leaf.count)
                return CC_CORRUPT(pos->cluster_ref, "row %u is past the %u values of a column leaf", pos->row,
                                  slot->leaf.count);
            return cc_leaf_get(&slot->leaf, pos->row, cell, is_null);
        }
    }
    cc_leaf leaf;
    int rc = slot && txn->recent_cluster.ref == pos->cluster_ref
        ? cc_cluster_node_leaf_open(txn, &txn->recent_cluster, column, col->type, col->collection, &leaf)
        : cc_cluster_leaf_open(txn, pos->cluster_ref, column, col->type, col->collection, &leaf);
    if (rc) return rc;
    if (slot) *slot = (cc_leaf_cache_entry){ pos->cluster_ref, column, 0, leaf };
    if (!leaf.values.ref) {
        default_cell(col, cell, is_null);
        return 0;
    }
    if (pos->row >= leaf.count)
        return CC_CORRUPT(leaf.values.ref, "column leaf values at %llu are %u, fewer than its cluster's rows",
                          (unsigned long long)leaf.values.ref, leaf.count);
    return cc_leaf_get(&leaf, pos->row, cell, is_null);
}

int cc_cluster_leaf_open(const columnar_txn *txn, uint64_t cluster_ref, uint32_t column, uint8_t type,
                         uint8_t collection, cc_leaf *out) {
    memset(out, 0, sizeof *out);
    cc_node cluster;
    int rc = cc_node_read(txn, cluster_ref, CF_ROLE_CLUSTER, &cluster);
    if (rc) return rc;
    return cc_cluster_node_leaf_open(txn, &cluster, column, type, collection, out);
}

int cc_cluster_node_leaf_open(const columnar_txn *txn, const cc_node *cluster, uint32_t column, uint8_t type,
                              uint8_t collection, cc_leaf *out) {
    memset(out, 0, sizeof *out);
    uint64_t leaf_ref = column + 1 < cluster->count ? cc_node_ref_at(cluster, column + 1) : 0;
    return leaf_ref ? cc_leaf_open(txn, leaf_ref, type, collection, out) : 0;
}

static cc_tnode *tnode_new(bool is_leaf) {
    cc_tnode *n = calloc(1, sizeof *n);
    if (n) n->is_leaf = is_leaf;
    return n;
}

/* Grows a private node's arrays to hold `capacity` entries. New child slots are zeroed, so that a node freed
 * before all its children were filled in frees none that it does not own. */
static int tnode_reserve(cc_tnode *n, uint32_t capacity) {
    if (capacity <= n->capacity) return 0;
    uint32_t grown = n->capacity ? n->capacity : 16;
    while (grown < capacity) grown = grown > UINT32_MAX / 2 ? UINT32_MAX : grown * 2;
    uint64_t *keys = realloc(n->keys, (size_t)grown * sizeof *keys);
    if (!keys) return -ENOMEM;
    n->keys = keys;
    if (!n->is_leaf) {
        cc_child *children = realloc(n->children, (size_t)grown * sizeof *children);
        if (!children) return -ENOMEM;
        memset(children + n->capacity, 0, (size_t)(grown - n->capacity) * sizeof *children);
        n->children = children;
    }
    n->capacity = grown;
    return 0;
}

int cc_tree_leaf_fit(cc_tnode *leaf, const cc_table_schema *schema) {
    if (leaf->column_count >= schema->column_count) return 0;
    cc_mvec *columns = realloc(leaf->columns, schema->column_count * sizeof *columns);
    if (!columns) return -ENOMEM;
    leaf->columns = columns;
    for (uint32_t c = leaf->column_count; c < schema->column_count; c++) {
        cc_column_vec_init(&columns[c], &schema->columns[c]);
        if (!columns[c].removed) {
            int rc = cc_mvec_insert_default(&columns[c], 0, leaf->count);
            if (rc) return rc;
        }
    }
    leaf->column_count = schema->column_count;
    return 0;
}

static void tnode_free(cc_tnode *n) {
    if (!n) return;
    if (n->is_leaf) {
        for (uint32_t c = 0; c < n->column_count; c++) {
            cc_mvec *vec = &n->columns[c];
            if (vec->collection != COLUMNAR_COLLECTION_NONE)
                for (uint32_t r = 0; r < vec->count; r++) {
                    cc_collcell *cell = cc_mvec_cell(vec, r);
                    if (cell->dirty) { cc_mcoll_free(cell->dirty); free(cell->dirty); }
                }
            cc_mvec_free(vec);
        }
        free(n->columns);
    } else {
        for (uint32_t i = 0; i < n->count; i++) tnode_free(n->children[i].node);
        free(n->children);
    }
    free(n->keys);
    free(n);
}

/* Copies the committed node of `child` into a private node and schedules the old nodes to be freed. When the copy
 * fails (a damaged node), nothing of it stays scheduled: the old nodes are still the ones the tree refers to, and
 * a commit that put them on the free list would let later commits overwrite live data. */
static int materialize(columnar_txn *txn, cc_child *child, const cc_table_schema *schema) {
    size_t scheduled_before = txn->to_free.count;
    cc_node node, keys;
    int rc = cc_tree_node_read(txn, child->ref, &node, &keys);
    if (rc) return rc;
    cc_tnode *n = tnode_new(node.role == CF_ROLE_CLUSTER);
    if (!n) return -ENOMEM;
    if ((rc = tnode_reserve(n, keys.count))) goto fail;
    for (uint32_t i = 0; i < keys.count; i++) {
        n->keys[i] = (uint64_t)cc_node_int_at(&keys, i);
        if (i && (int64_t)n->keys[i] <= (int64_t)n->keys[i - 1]) {
            rc = CC_CORRUPT(keys.ref, "keys at %llu are not ascending at position %u", (unsigned long long)keys.ref, i);
            goto fail;
        }
    }
    if (!n->is_leaf) {
        /* The count is set once every child is: tnode_free frees the children it counts. */
        for (uint32_t i = 0; i < keys.count; i++) {
            n->children[i] = (cc_child){ cc_node_ref_at(&node, i + 1), NULL };
            if (!n->children[i].ref) {
                rc = CC_CORRUPT(node.ref, "inner node at %llu has a null child", (unsigned long long)node.ref);
                goto fail;
            }
        }
        n->count = keys.count;
    } else {
        n->count = keys.count;
        n->columns = calloc(schema->column_count ? schema->column_count : 1, sizeof *n->columns);
        if (!n->columns) { rc = -ENOMEM; goto fail; }
        n->column_count = schema->column_count;
        for (uint32_t c = 0; c < schema->column_count; c++) {
            const cc_column *col = &schema->columns[c];
            cc_mvec *vec = &n->columns[c];
            cc_column_vec_init(vec, col);
            uint64_t leaf_ref = c + 1 < node.count ? cc_node_ref_at(&node, c + 1) : 0;
            if (!vec->removed) {
                if (leaf_ref) {
                    cc_leaf leaf;
                    if ((rc = cc_leaf_open(txn, leaf_ref, col->type, col->collection, &leaf))) goto fail;
                    if (leaf.count != n->count) {
                        rc = CC_CORRUPT(leaf_ref, "column leaf at %llu has %u values for %u rows",
                                        (unsigned long long)leaf_ref, leaf.count, n->count);
                        goto fail;
                    }
                    if ((rc = cc_leaf_append(&leaf, 0, leaf.count, vec))) goto fail;
                } else if ((rc = cc_mvec_insert_default(vec, 0, n->count))) {
                    goto fail;
                }
            }
            if (leaf_ref && (rc = cc_leaf_free(txn, leaf_ref))) goto fail;
        }
    }
    if ((rc = cc_free_node(txn, keys.ref)) || (rc = cc_free_node(txn, node.ref))) goto fail;
    child->node = n;
    return 0;
fail:
    txn->to_free.count = scheduled_before;
    tnode_free(n);
    return rc;
}

static uint32_t split_threshold(const columnar_txn *txn) {
    uint32_t rows = txn->db->cluster_size * CC_LEAF_SPLIT_FACTOR;
    return rows < CC_LEAF_SPLIT_MIN_ROWS ? CC_LEAF_SPLIT_MIN_ROWS : rows;
}

/* Moves the upper half of a private leaf into a new sibling placed after it in `parent` (or a new root). */
static int split_leaf(cc_child *root, cc_tnode *parent, uint32_t index_in_parent, cc_tnode *leaf,
                      cc_tnode **out_right) {
    uint32_t half = leaf->count / 2, moved = leaf->count - half;
    cc_tnode *right = tnode_new(true);
    if (!right) return -ENOMEM;
    int rc = tnode_reserve(right, moved);
    if (rc) { tnode_free(right); return rc; }
    right->columns = calloc(leaf->column_count ? leaf->column_count : 1, sizeof *right->columns);
    if (!right->columns) { tnode_free(right); return -ENOMEM; }
    right->column_count = leaf->column_count;
    memcpy(right->keys, leaf->keys + half, moved * sizeof *leaf->keys);
    right->count = moved;
    for (uint32_t c = 0; c < leaf->column_count; c++) {
        cc_mvec *from = &leaf->columns[c], *to = &right->columns[c];
        cc_mvec_init(to, from->type, from->collection, from->nullable);
        to->removed = from->removed;
        if (from->removed) continue;
        if ((rc = cc_mvec_reserve(to, moved))) { tnode_free(right); return rc; }
        memcpy(to->cells, cc_mvec_cell(from, half), (size_t)moved * from->cell_bytes);
        if (from->nulls) memcpy(to->nulls, from->nulls + half, moved);
        to->count = moved;
        from->count = half;
    }
    leaf->count = half;
    if (!parent) {
        cc_tnode *inner = tnode_new(false);
        if (!inner || tnode_reserve(inner, 2)) { tnode_free(inner); tnode_free(right); return -ENOMEM; }
        inner->keys[0] = leaf->keys[0];
        inner->children[0] = (cc_child){ 0, leaf };
        inner->keys[1] = right->keys[0];
        inner->children[1] = (cc_child){ 0, right };
        inner->count = 2;
        root->node = inner;
        root->ref = 0;
    } else {
        if ((rc = tnode_reserve(parent, parent->count + 1))) { tnode_free(right); return rc; }
        uint32_t at = index_in_parent + 1;
        memmove(parent->keys + at + 1, parent->keys + at, (parent->count - at) * sizeof *parent->keys);
        memmove(parent->children + at + 1, parent->children + at, (parent->count - at) * sizeof *parent->children);
        parent->keys[at] = right->keys[0];
        parent->children[at] = (cc_child){ 0, right };
        parent->count++;
    }
    *out_right = right;
    return 0;
}

int cc_tree_locate(columnar_txn *txn, cc_child *root, const cc_table_schema *schema, int64_t key, bool insert,
                   cc_tnode **out_leaf, uint32_t *out_row, bool *out_found) {
    *out_leaf = NULL;
    *out_found = false;
    int rc;
    if (!root->node && !root->ref) {
        if (!insert) return 0;
        cc_tnode *leaf = tnode_new(true);
        if (!leaf) return -ENOMEM;
        if ((rc = cc_tree_leaf_fit(leaf, schema))) { tnode_free(leaf); return rc; }
        root->node = leaf;
    }
    cc_child *child = root;
    cc_tnode *parent = NULL;
    uint32_t index_in_parent = 0;
    for (uint32_t depth = 0;; depth++) {
        if (depth >= CF_MAX_TREE_DEPTH)
            return CC_CORRUPT(root->ref, "tree deeper than %u levels (a ref cycle?)", CF_MAX_TREE_DEPTH);
        if (!child->node && (rc = materialize(txn, child, schema))) return rc;
        cc_tnode *n = child->node;
        if (n->is_leaf) break;
        if (n->count == 0) {
            /* An inner node emptied by deletions in this transaction: give it a fresh leaf. */
            if (!insert) return 0;
            cc_tnode *leaf = tnode_new(true);
            if (!leaf || tnode_reserve(n, 1)) { tnode_free(leaf); return -ENOMEM; }
            if ((rc = cc_tree_leaf_fit(leaf, schema))) { tnode_free(leaf); return rc; }
            n->keys[0] = (uint64_t)key;
            n->children[0] = (cc_child){ 0, leaf };
            n->count = 1;
        }
        parent = n;
        index_in_parent = route_private(n, key);
        child = &n->children[index_in_parent];
    }
    cc_tnode *leaf = child->node;
    if ((rc = cc_tree_leaf_fit(leaf, schema))) return rc;
    uint32_t row = lower_bound_private(leaf, key);
    *out_found = row < leaf->count && (int64_t)leaf->keys[row] == key;
    if (!*out_found && insert) {
        if ((rc = tnode_reserve(leaf, leaf->count + 1))) return rc;
        for (uint32_t c = 0; c < leaf->column_count; c++)
            if (!leaf->columns[c].removed && (rc = cc_mvec_insert_default(&leaf->columns[c], row, 1))) return rc;
        memmove(leaf->keys + row + 1, leaf->keys + row, (leaf->count - row) * sizeof *leaf->keys);
        leaf->keys[row] = (uint64_t)key;
        leaf->count++;
        if (leaf->count > split_threshold(txn)) {
            cc_tnode *right;
            if ((rc = split_leaf(root, parent, index_in_parent, leaf, &right))) return rc;
            if (row >= leaf->count) {
                row -= leaf->count;
                leaf = right;
            }
        }
    }
    *out_leaf = leaf;
    *out_row = row;
    return 0;
}

void cc_tree_remove_row(cc_tnode *leaf, uint32_t row) {
    memmove(leaf->keys + row, leaf->keys + row + 1, (leaf->count - row - 1) * sizeof *leaf->keys);
    for (uint32_t c = 0; c < leaf->column_count; c++)
        if (!leaf->columns[c].removed) cc_mvec_remove(&leaf->columns[c], row);
    leaf->count--;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Commit-time encoding                                                                                         */
/* ---------------------------------------------------------------------------------------------------------- */

/* Groups `in` (all on one level) into INNER nodes of at most CF_INNER_FANOUT children, balanced. */
static int write_level(cc_emitter *emitter, const cc_outvec *in, cc_outvec *out) {
    if (in->count == 0) return 0;
    size_t groups = (in->count + CF_INNER_FANOUT - 1) / CF_INNER_FANOUT;
    size_t base = in->count / groups, extra = in->count % groups, at = 0;
    for (size_t g = 0; g < groups; g++) {
        size_t n = base + (g < extra ? 1 : 0);
        int64_t *keys = cc_emitter_scratch(emitter, n);
        if (!keys) return -ENOMEM;
        for (size_t i = 0; i < n; i++) keys[i] = in->items[at + i].first_key;
        uint64_t refs[CF_INNER_FANOUT + 1];
        int rc = cc_emit_ints(emitter, CF_ROLE_KEYS, 0, keys, n, &refs[0]);
        if (rc) return rc;
        for (size_t i = 0; i < n; i++) refs[i + 1] = in->items[at + i].ref;
        uint64_t ref;
        if ((rc = cc_emit_refs(emitter, CF_ROLE_INNER, 0, refs, n + 1, &ref))) return rc;
        if ((rc = outvec_push(out, in->items[at].first_key, ref))) return rc;
        at += n;
    }
    return 0;
}

static int write_leaf(cc_emitter *emitter, cc_tnode *leaf, const cc_table_schema *schema, uint32_t cluster_size,
                      cc_outvec *out) {
    int rc = cc_tree_leaf_fit(leaf, schema);
    if (rc) return rc;
    if (leaf->count == 0) return 0;
    /* Collections changed by this transaction are written first: the cluster stores their new roots. */
    for (uint32_t c = 0; c < leaf->column_count; c++) {
        cc_mvec *vec = &leaf->columns[c];
        if (vec->removed || vec->collection == COLUMNAR_COLLECTION_NONE) continue;
        cc_elemtype elem = column_elem(&schema->columns[c]);
        for (uint32_t r = 0; r < vec->count; r++) {
            cc_collcell *cell = cc_mvec_cell(vec, r);
            if (!cell->dirty) continue;
            rc = cc_coll_write(emitter, cell->dirty, elem, &cell->ref);
            free(cell->dirty);
            cell->dirty = NULL;
            if (rc) return rc;
        }
    }
    uint32_t chunks = (leaf->count + cluster_size - 1) / cluster_size;
    uint32_t base = leaf->count / chunks, extra = leaf->count % chunks, from = 0;
    uint64_t *refs = malloc((1 + (size_t)leaf->column_count) * sizeof *refs);
    if (!refs) return -ENOMEM;
    for (uint32_t chunk = 0; chunk < chunks && !rc; chunk++) {
        uint32_t rows = base + (chunk < extra ? 1 : 0);
        rc = cc_emit_ints(emitter, CF_ROLE_KEYS, 0, (const int64_t *)(leaf->keys + from), rows, &refs[0]);
        for (uint32_t c = 0; c < leaf->column_count && !rc; c++) {
            /* A column whose rows all hold the default is stored as ref 0 (FileFormat.md, CLUSTER): an index's list
             * of further keys is empty in almost every row, and its leaf of zero refs was half the index. */
            refs[c + 1] = 0;
            const cc_mvec *vec = &leaf->columns[c];
            if (!vec->removed && !cc_leaf_rows_default(vec, from, rows))
                rc = cc_leaf_write(emitter, vec, from, rows, &refs[c + 1]);
        }
        uint64_t ref = 0;
        if (!rc) rc = cc_emit_refs(emitter, CF_ROLE_CLUSTER, 0, refs, 1 + (uint64_t)leaf->column_count, &ref);
        if (!rc) rc = outvec_push(out, (int64_t)leaf->keys[from], ref);
        from += rows;
    }
    free(refs);
    return rc;
}

static int write_tnode(cc_emitter *emitter, cc_tnode *n, const cc_table_schema *schema, uint32_t cluster_size,
                       cc_outvec *out) {
    if (n->is_leaf) return write_leaf(emitter, n, schema, cluster_size, out);
    cc_outvec children = { 0 };
    int rc = 0;
    for (uint32_t i = 0; i < n->count && !rc; i++) {
        if (n->children[i].node) rc = write_tnode(emitter, n->children[i].node, schema, cluster_size, &children);
        else rc = outvec_push(&children, (int64_t)n->keys[i], n->children[i].ref);
    }
    if (!rc) rc = write_level(emitter, &children, out);
    free(children.items);
    return rc;
}

int cc_tree_write(cc_emitter *emitter, cc_child *root, const cc_table_schema *schema, uint32_t cluster_size) {
    if (!root->node) return 0;
    cc_outvec level = { 0 };
    int rc = write_tnode(emitter, root->node, schema, cluster_size, &level);
    while (!rc && level.count > 1) {
        cc_outvec up = { 0 };
        rc = write_level(emitter, &level, &up);
        free(level.items);
        level = up;
    }
    if (!rc) {
        tnode_free(root->node);
        root->node = NULL;
        root->ref = level.count ? level.items[0].ref : 0;
    }
    free(level.items);
    return rc;
}

void cc_tree_discard(cc_child *root) {
    tnode_free(root->node);
    root->node = NULL;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Whole-tree walks                                                                                             */
/* ---------------------------------------------------------------------------------------------------------- */

static int release_committed(columnar_txn *txn, uint64_t ref, const cc_table_schema *schema, uint32_t depth) {
    if (depth >= CF_MAX_TREE_DEPTH) return CC_CORRUPT(ref, "tree deeper than %u levels", CF_MAX_TREE_DEPTH);
    cc_node node, keys;
    int rc = cc_tree_node_read(txn, ref, &node, &keys);
    if (rc) return rc;
    if (node.role == CF_ROLE_INNER) {
        for (uint32_t i = 1; i < node.count; i++)
            if ((rc = release_committed(txn, cc_node_ref_at(&node, i), schema, depth + 1))) return rc;
    } else {
        for (uint32_t c = 0; c < schema->column_count && c + 1 < node.count; c++) {
            uint64_t leaf_ref = cc_node_ref_at(&node, c + 1);
            if (!leaf_ref) continue;
            const cc_column *col = &schema->columns[c];
            if (col->collection != COLUMNAR_COLLECTION_NONE) {
                cc_leaf leaf;
                if ((rc = cc_leaf_open(txn, leaf_ref, col->type, col->collection, &leaf))) return rc;
                for (uint32_t r = 0; r < leaf.count; r++) {
                    cc_collcell cell = { cc_node_ref_at(&leaf.values, r), NULL };
                    if ((rc = cc_collcell_release(txn, &cell, column_elem(col)))) return rc;
                }
            }
            if ((rc = cc_leaf_free(txn, leaf_ref))) return rc;
        }
    }
    if ((rc = cc_free_node(txn, keys.ref))) return rc;
    return cc_free_node(txn, ref);
}

static int release_child(columnar_txn *txn, cc_child *child, const cc_table_schema *schema, uint32_t depth) {
    int rc = 0;
    if (!child->node) {
        if (child->ref) rc = release_committed(txn, child->ref, schema, depth);
    } else if (child->node->is_leaf) {
        cc_tnode *leaf = child->node;
        for (uint32_t c = 0; c < leaf->column_count && !rc; c++) {
            cc_mvec *vec = &leaf->columns[c];
            if (vec->removed || vec->collection == COLUMNAR_COLLECTION_NONE) continue;
            for (uint32_t r = 0; r < vec->count && !rc; r++)
                rc = cc_collcell_release(txn, cc_mvec_cell(vec, r), column_elem(&schema->columns[c]));
        }
    } else {
        for (uint32_t i = 0; i < child->node->count && !rc; i++)
            rc = release_child(txn, &child->node->children[i], schema, depth + 1);
    }
    if (rc) return rc;
    tnode_free(child->node);
    child->node = NULL;
    child->ref = 0;
    return 0;
}

int cc_tree_release(columnar_txn *txn, cc_child *root, const cc_table_schema *schema) {
    return release_child(txn, root, schema, 0);
}

/* A walk over every row. Rows come in key order, and a committed cluster must start above the last key seen: a
 * damaged tree whose refs reach a subtree twice fails at the second visit instead of being walked once per path
 * (exponentially many in its depth). */
typedef struct row_walk {
    const columnar_txn *txn;
    cc_row_visitor visit;
    void *context;
    bool has_last;
    int64_t last_key;
} row_walk;

static int each_committed(row_walk *w, uint64_t ref, uint32_t depth) {
    if (depth >= CF_MAX_TREE_DEPTH) return CC_CORRUPT(ref, "tree deeper than %u levels", CF_MAX_TREE_DEPTH);
    cc_node node, keys;
    int rc = cc_tree_node_read(w->txn, ref, &node, &keys);
    if (rc) return rc;
    if (node.role == CF_ROLE_INNER) {
        for (uint32_t i = 1; i < node.count; i++)
            if ((rc = each_committed(w, cc_node_ref_at(&node, i), depth + 1))) return rc;
        return 0;
    }
    int64_t first = cc_node_int_at(&keys, 0);
    if (w->has_last && first <= w->last_key)
        return CC_CORRUPT(ref, "cluster at %llu starts at key %lld, not above the key %lld before it",
                          (unsigned long long)ref, (long long)first, (long long)w->last_key);
    for (uint32_t r = 0; r < keys.count; r++) {
        cc_rowpos pos = { NULL, ref, r };
        int64_t key = cc_node_int_at(&keys, r);
        w->has_last = true;
        w->last_key = key;
        if ((rc = w->visit(w->context, key, &pos))) return rc;
    }
    return 0;
}

static int each_child(row_walk *w, const cc_child *child, uint32_t depth) {
    if (!child->node) return child->ref ? each_committed(w, child->ref, depth) : 0;
    cc_tnode *n = child->node;
    int rc;
    if (n->is_leaf) {
        for (uint32_t r = 0; r < n->count; r++) {
            cc_rowpos pos = { n, 0, r };
            w->has_last = true;
            w->last_key = (int64_t)n->keys[r];
            if ((rc = w->visit(w->context, (int64_t)n->keys[r], &pos))) return rc;
        }
        return 0;
    }
    for (uint32_t i = 0; i < n->count; i++)
        if ((rc = each_child(w, &n->children[i], depth + 1))) return rc;
    return 0;
}

int cc_tree_each_row(const columnar_txn *txn, const cc_child *root, cc_row_visitor visit, void *context) {
    row_walk w = { txn, visit, context, false, 0 };
    return each_child(&w, root, 0);
}

static int materialize_child(columnar_txn *txn, cc_child *child, const cc_table_schema *schema, uint32_t depth) {
    if (depth >= CF_MAX_TREE_DEPTH) return CC_CORRUPT(child->ref, "tree deeper than %u levels", CF_MAX_TREE_DEPTH);
    if (!child->node) {
        if (!child->ref) return 0;
        int rc = materialize(txn, child, schema);
        if (rc) return rc;
    }
    cc_tnode *n = child->node;
    if (n->is_leaf) return cc_tree_leaf_fit(n, schema);
    for (uint32_t i = 0; i < n->count; i++) {
        int rc = materialize_child(txn, &n->children[i], schema, depth + 1);
        if (rc) return rc;
    }
    return 0;
}

int cc_tree_materialize_all(columnar_txn *txn, cc_child *root, const cc_table_schema *schema) {
    return materialize_child(txn, root, schema, 0);
}

/* Finds the first cluster below `child` holding a key >= `key`. With `must_find`, the subtree was entered
 * because its routing key is above `key`: in a committed tree its first key is that routing key, so its leftmost
 * cluster must answer. Failing that, it is damaged (its keys lie below its routing key), and saying so at once
 * keeps a damaged tree whose refs reach subtrees several times from being searched in full once per path. */
static int seek_child(const columnar_txn *txn, const cc_child *child, int64_t key, cc_cluster_pos *out,
                      uint32_t depth, bool must_find) {
    if (depth >= CF_MAX_TREE_DEPTH) return CC_CORRUPT(child->ref, "tree deeper than %u levels", CF_MAX_TREE_DEPTH);
    int rc;
    if (child->node) {
        /* Private nodes may have lost rows to this transaction, so a child may come back empty-handed. */
        cc_tnode *n = child->node;
        if (n->is_leaf) {
            if (n->count && (int64_t)n->keys[n->count - 1] >= key) {
                out->found = true;
                out->leaf = n;
            }
            return 0;
        }
        for (uint32_t i = n->count ? route_private(n, key) : 0; i < n->count; i++) {
            if ((rc = seek_child(txn, &n->children[i], key, out, depth + 1, false))) return rc;
            if (out->found) return 0;
        }
        return 0;
    }
    if (!child->ref) return 0;
    cc_node node, keys;
    if ((rc = cc_tree_node_read(txn, child->ref, &node, &keys))) return rc;
    if (node.role == CF_ROLE_CLUSTER) {
        if (cc_node_int_at(&keys, keys.count - 1) >= key) {
            out->found = true;
            out->keys = keys;
            out->cluster_ref = node.ref;
        } else if (must_find) {
            return CC_CORRUPT(node.ref, "cluster at %llu ends at key %lld, below the routing key that led to it",
                              (unsigned long long)node.ref, (long long)cc_node_int_at(&keys, keys.count - 1));
        }
        return 0;
    }
    /* The child the key routes to may hold only smaller keys; every later one is entered with must_find. */
    uint64_t routed = route_packed(&keys, key);
    for (uint64_t i = routed; i < keys.count; i++) {
        cc_child next = { cc_node_ref_at(&node, (uint32_t)i + 1), NULL };
        if (!next.ref) return CC_CORRUPT(node.ref, "inner node at %llu has a null child", (unsigned long long)node.ref);
        if ((rc = seek_child(txn, &next, key, out, depth + 1, must_find || i > routed))) return rc;
        if (out->found) return 0;
    }
    return 0;
}

int cc_tree_seek_cluster(const columnar_txn *txn, const cc_child *root, int64_t key, cc_cluster_pos *out) {
    memset(out, 0, sizeof *out);
    return seek_child(txn, root, key, out, 0, false);
}

static int seek_last(const columnar_txn *txn, const cc_child *child, cc_cluster_pos *out, uint32_t depth) {
    if (depth >= CF_MAX_TREE_DEPTH) return CC_CORRUPT(child->ref, "tree deeper than %u levels", CF_MAX_TREE_DEPTH);
    int rc;
    if (child->node) {
        cc_tnode *n = child->node;
        if (n->is_leaf) {
            if (n->count) {
                out->found = true;
                out->leaf = n;
            }
            return 0;
        }
        /* A private leaf may have lost all its rows in this transaction: the last cluster is the last non-empty. */
        for (uint32_t i = n->count; i-- > 0;) {
            if ((rc = seek_last(txn, &n->children[i], out, depth + 1))) return rc;
            if (out->found) return 0;
        }
        return 0;
    }
    if (!child->ref) return 0;
    cc_node node, keys;
    if ((rc = cc_tree_node_read(txn, child->ref, &node, &keys))) return rc;
    if (node.role == CF_ROLE_CLUSTER) {
        if (keys.count) {
            out->found = true;
            out->keys = keys;
            out->cluster_ref = node.ref;
        }
        return 0;
    }
    for (uint64_t i = keys.count; i-- > 0;) {
        cc_child next = { cc_node_ref_at(&node, (uint32_t)i + 1), NULL };
        if (!next.ref) return CC_CORRUPT(node.ref, "inner node at %llu has a null child", (unsigned long long)node.ref);
        if ((rc = seek_last(txn, &next, out, depth + 1))) return rc;
        if (out->found) return 0;
    }
    return 0;
}

int cc_tree_seek_last_cluster(const columnar_txn *txn, const cc_child *root, cc_cluster_pos *out) {
    memset(out, 0, sizeof *out);
    return seek_last(txn, root, out, 0);
}
