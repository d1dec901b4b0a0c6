/*
 * coll.c — collections on disk (B+trees of column leaves with cumulative counts) and in private memory.
 */
#include "coll.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

static uint8_t part_type(cc_elemtype elem, bool keys) { return keys ? COLUMNAR_TYPE_STRING : elem.type; }

/* Resolves the list root holding the values (or, with `keys`, the keys) of the collection at `ref`. */
static int list_root(const columnar_txn *txn, uint64_t ref, cc_elemtype elem, bool keys, uint64_t *out_root) {
    if (elem.collection != COLUMNAR_COLLECTION_DICT) {
        *out_root = ref;
        return 0;
    }
    cc_node dict;
    int rc = cc_node_read(txn, ref, CF_ROLE_DICT, &dict);
    if (rc) return rc;
    if (dict.encoding != COLUMNAR_ENCODING_REFS || dict.count != 2)
        return CC_CORRUPT(ref, "dictionary at %llu does not have 2 parts", (unsigned long long)ref);
    *out_root = cc_node_ref_at(&dict, keys ? 0 : 1);
    if (!*out_root) return CC_CORRUPT(ref, "dictionary at %llu has a null part", (unsigned long long)ref);
    return 0;
}

/* Opens a collection leaf: a COLUMN of at most CF_COLL_LEAF_MAX elements (what a writer makes, so that a walk over
 * a collection copies at most that many elements per node it reaches). */
static int open_coll_leaf(const columnar_txn *txn, uint64_t ref, uint8_t type, cc_leaf *out) {
    int rc = cc_leaf_open(txn, ref, type, COLUMNAR_COLLECTION_NONE, out);
    if (rc == 0 && out->count > CF_COLL_LEAF_MAX)
        return CC_CORRUPT(ref, "collection leaf at %llu holds %u elements, more than the %u a writer makes",
                          (unsigned long long)ref, out->count, CF_COLL_LEAF_MAX);
    return rc;
}

/* Reads a LIST_INNER node and its cumulative counts, checking them. */
static int read_list_inner(const columnar_txn *txn, const cc_node *node, cc_node *counts) {
    if (node->encoding != COLUMNAR_ENCODING_REFS || node->count < 2)
        return CC_CORRUPT(node->ref, "list node at %llu has no children", (unsigned long long)node->ref);
    if (node->count - 1 > CF_INNER_FANOUT)
        return CC_CORRUPT(node->ref, "list node at %llu has %u children, more than the %u a writer makes",
                          (unsigned long long)node->ref, node->count - 1, CF_INNER_FANOUT);
    int rc = cc_node_child(txn, node, 0, CF_ROLE_META, false, counts);
    if (rc) return rc;
    if (counts->encoding != COLUMNAR_ENCODING_PACKED_INT || counts->count != node->count - 1)
        return CC_CORRUPT(node->ref, "list node at %llu has %u children but %u counts", (unsigned long long)node->ref,
                          node->count - 1, counts->count);
    return 0;
}

static int list_count(const columnar_txn *txn, uint64_t root, uint8_t type, uint64_t *out) {
    cc_node node;
    int rc = cc_node_read(txn, root, 0, &node);
    if (rc) return rc;
    if (node.role == CF_ROLE_COLUMN) {
        cc_leaf leaf;
        if ((rc = open_coll_leaf(txn, root, type, &leaf))) return rc;
        *out = leaf.count;
        return 0;
    }
    if (node.role != CF_ROLE_LIST_INNER)
        return CC_CORRUPT(root, "collection node at %llu has role %u", (unsigned long long)root, node.role);
    cc_node counts;
    if ((rc = read_list_inner(txn, &node, &counts))) return rc;
    int64_t total = cc_node_int_at(&counts, counts.count - 1);
    /* A collection is copied into a vector of at most UINT32_MAX elements when it is written to. */
    if (total < 0 || total > UINT32_MAX)
        return CC_CORRUPT(counts.ref, "list counts at %llu claim %lld elements", (unsigned long long)counts.ref,
                          (long long)total);
    *out = (uint64_t)total;
    return 0;
}

int cc_coll_count(const columnar_txn *txn, uint64_t ref, cc_elemtype elem, uint64_t *out_count) {
    *out_count = 0;
    if (!ref) return 0;
    uint64_t root;
    int rc = list_root(txn, ref, elem, false, &root);
    if (rc) return rc;
    return list_count(txn, root, elem.type, out_count);
}

int cc_coll_get(const columnar_txn *txn, uint64_t ref, cc_elemtype elem, bool keys, uint64_t index, void *cell,
                bool *is_null) {
    uint64_t node_ref;
    int rc = list_root(txn, ref, elem, keys, &node_ref);
    if (rc) return rc;
    uint8_t type = part_type(elem, keys);
    for (uint32_t depth = 0; depth < CF_MAX_TREE_DEPTH; depth++) {
        cc_node node;
        if ((rc = cc_node_read(txn, node_ref, 0, &node))) return rc;
        if (node.role == CF_ROLE_COLUMN) {
            cc_leaf leaf;
            if ((rc = open_coll_leaf(txn, node_ref, type, &leaf))) return rc;
            if (index >= leaf.count)
                return CC_CORRUPT(node_ref, "collection leaf at %llu has %u elements, fewer than its parent counts",
                                  (unsigned long long)node_ref, leaf.count);
            return cc_leaf_get(&leaf, (uint32_t)index, cell, is_null);
        }
        if (node.role != CF_ROLE_LIST_INNER)
            return CC_CORRUPT(node_ref, "collection node at %llu has role %u", (unsigned long long)node_ref, node.role);
        cc_node counts;
        if ((rc = read_list_inner(txn, &node, &counts))) return rc;
        /* First child whose cumulative count exceeds the index. */
        uint64_t low = 0, high = counts.count;
        while (low < high) {
            uint64_t mid = low + (high - low) / 2;
            if ((uint64_t)cc_node_int_at(&counts, mid) <= index) low = mid + 1;
            else high = mid;
        }
        if (low == counts.count)
            return CC_CORRUPT(node_ref, "index %llu beyond the counts of list node %llu", (unsigned long long)index,
                              (unsigned long long)node_ref);
        int64_t before = low ? cc_node_int_at(&counts, low - 1) : 0;
        if (before < 0 || (uint64_t)before > index)
            return CC_CORRUPT(counts.ref, "list counts at %llu are not ascending", (unsigned long long)counts.ref);
        index -= (uint64_t)before;
        node_ref = cc_node_ref_at(&node, (uint32_t)low + 1);
    }
    return CC_CORRUPT(ref, "collection deeper than %u levels", CF_MAX_TREE_DEPTH);
}

/* Appends every element under `root` to `vec`, scheduling the nodes to be freed when `free_nodes`. A copy (`vec`
 * not NULL) checks every inner node's cumulative counts against the elements its children hold: the copy is then
 * edited by position, and the positions a caller may use were bounded by the count the root claims. */
static int list_walk(columnar_txn *txn, uint64_t root, uint8_t type, cc_mvec *vec, bool free_nodes, uint32_t depth) {
    if (depth >= CF_MAX_TREE_DEPTH) return CC_CORRUPT(root, "collection deeper than %u levels", CF_MAX_TREE_DEPTH);
    cc_node node;
    int rc = cc_node_read(txn, root, 0, &node);
    if (rc) return rc;
    if (node.role == CF_ROLE_COLUMN) {
        if (vec) {
            cc_leaf leaf;
            if ((rc = open_coll_leaf(txn, root, type, &leaf))) return rc;
            if ((rc = cc_leaf_append(&leaf, 0, leaf.count, vec))) return rc;
        }
        return free_nodes ? cc_leaf_free(txn, root) : 0;
    }
    if (node.role != CF_ROLE_LIST_INNER)
        return CC_CORRUPT(root, "collection node at %llu has role %u", (unsigned long long)root, node.role);
    cc_node counts;
    if ((rc = read_list_inner(txn, &node, &counts))) return rc;
    uint32_t first = vec ? vec->count : 0;
    for (uint32_t i = 1; i < node.count; i++) {
        uint64_t child = cc_node_ref_at(&node, i);
        if (!child) return CC_CORRUPT(root, "list node at %llu has a null child", (unsigned long long)root);
        if ((rc = list_walk(txn, child, type, vec, free_nodes, depth + 1))) return rc;
        if (vec && cc_node_int_at(&counts, i - 1) != (int64_t)(vec->count - first))
            return CC_CORRUPT(counts.ref, "list node at %llu counts %lld elements up to child %u, but its children "
                              "hold %u", (unsigned long long)root, (long long)cc_node_int_at(&counts, i - 1), i - 1,
                              vec->count - first);
    }
    if (free_nodes && ((rc = cc_free_node(txn, counts.ref)) || (rc = cc_free_node(txn, root)))) return rc;
    return 0;
}

static int coll_walk(columnar_txn *txn, uint64_t ref, cc_elemtype elem, cc_mcoll *into, bool free_nodes) {
    int rc;
    if (elem.collection == COLUMNAR_COLLECTION_DICT) {
        uint64_t keys_root, values_root;
        if ((rc = list_root(txn, ref, elem, true, &keys_root)) || (rc = list_root(txn, ref, elem, false, &values_root)))
            return rc;
        if ((rc = list_walk(txn, keys_root, COLUMNAR_TYPE_STRING, into ? &into->keys : NULL, free_nodes, 0))) return rc;
        if ((rc = list_walk(txn, values_root, elem.type, into ? &into->values : NULL, free_nodes, 0))) return rc;
        if (into && into->keys.count != into->values.count)
            return CC_CORRUPT(ref, "dictionary at %llu has %u keys and %u values", (unsigned long long)ref,
                              into->keys.count, into->values.count);
        return free_nodes ? cc_free_node(txn, ref) : 0;
    }
    return list_walk(txn, ref, elem.type, into ? &into->values : NULL, free_nodes, 0);
}

static void mcoll_init(cc_mcoll *coll, cc_elemtype elem) {
    cc_mvec_init(&coll->keys, COLUMNAR_TYPE_STRING, COLUMNAR_COLLECTION_NONE, false);
    cc_mvec_init(&coll->values, elem.type, COLUMNAR_COLLECTION_NONE, elem.nullable);
}

void cc_mcoll_free(cc_mcoll *coll) {
    cc_mvec_free(&coll->keys);
    cc_mvec_free(&coll->values);
}

int cc_coll_materialize(columnar_txn *txn, cc_collcell *cell, cc_elemtype elem) {
    if (cell->dirty) return 0;
    cc_mcoll *coll = calloc(1, sizeof *coll);
    if (!coll) return -ENOMEM;
    mcoll_init(coll, elem);
    if (cell->ref) {
        /* A copy that fails (a damaged node) takes back the frees it scheduled: the cell still refers to them. */
        size_t scheduled_before = txn->to_free.count;
        int rc = coll_walk(txn, cell->ref, elem, coll, true);
        if (rc) {
            txn->to_free.count = scheduled_before;
            cc_mcoll_free(coll);
            free(coll);
            return rc;
        }
    }
    cell->dirty = coll;
    cell->ref = 0;
    return 0;
}

typedef struct cc_part {
    uint64_t ref;
    uint64_t count;
} cc_part;

/* Writes one list (values of `vec`) as leaves plus LIST_INNER levels; returns its root. */
static int write_list(cc_emitter *emitter, const cc_mvec *vec, uint64_t *out_root) {
    uint32_t leaves = (uint32_t)(((uint64_t)vec->count + CF_COLL_LEAF_MAX - 1) / CF_COLL_LEAF_MAX);
    cc_part *parts = malloc((leaves ? leaves : 1) * sizeof *parts);
    if (!parts) return -ENOMEM;
    uint32_t base = vec->count / leaves, extra = vec->count % leaves, from = 0;
    int rc = 0;
    for (uint32_t i = 0; i < leaves && !rc; i++) {
        uint32_t n = base + (i < extra ? 1 : 0);
        rc = cc_leaf_write(emitter, vec, from, n, &parts[i].ref);
        parts[i].count = n;
        from += n;
    }
    size_t count = leaves;
    while (!rc && count > 1) {
        size_t groups = (count + CF_INNER_FANOUT - 1) / CF_INNER_FANOUT, at = 0;
        size_t gbase = count / groups, gextra = count % groups;
        for (size_t g = 0; g < groups && !rc; g++) {
            size_t n = gbase + (g < gextra ? 1 : 0);
            int64_t *cumulative = cc_emitter_scratch(emitter, n);
            if (!cumulative) { rc = -ENOMEM; break; }
            uint64_t total = 0;
            for (size_t i = 0; i < n; i++) cumulative[i] = (int64_t)(total += parts[at + i].count);
            uint64_t refs[CF_INNER_FANOUT + 1];
            rc = cc_emit_ints(emitter, CF_ROLE_META, 0, cumulative, n, &refs[0]);
            for (size_t i = 0; i < n; i++) refs[i + 1] = parts[at + i].ref;
            uint64_t ref = 0;
            if (!rc) rc = cc_emit_refs(emitter, CF_ROLE_LIST_INNER, vec->type, refs, n + 1, &ref);
            parts[g] = (cc_part){ ref, total };
            at += n;
        }
        count = groups;
    }
    if (!rc) *out_root = parts[0].ref;
    free(parts);
    return rc;
}

int cc_coll_write(cc_emitter *emitter, cc_mcoll *coll, cc_elemtype elem, uint64_t *out_ref) {
    int rc = 0;
    *out_ref = 0;
    if (coll->values.count > 0) {
        if (elem.collection == COLUMNAR_COLLECTION_DICT) {
            uint64_t parts[2];
            rc = write_list(emitter, &coll->keys, &parts[0]);
            if (!rc) rc = write_list(emitter, &coll->values, &parts[1]);
            if (!rc) rc = cc_emit_refs(emitter, CF_ROLE_DICT, elem.type, parts, 2, out_ref);
        } else {
            rc = write_list(emitter, &coll->values, out_ref);
        }
    }
    cc_mcoll_free(coll);
    return rc;
}

int cc_collcell_release(columnar_txn *txn, cc_collcell *cell, cc_elemtype elem) {
    int rc = 0;
    if (cell->dirty) {
        cc_mcoll_free(cell->dirty);
        free(cell->dirty);
        cell->dirty = NULL;
    } else if (cell->ref) {
        size_t scheduled_before = txn->to_free.count;
        if ((rc = coll_walk(txn, cell->ref, elem, NULL, true))) {
            /* The nodes stay where the cell refers to them (leaked rather than freed while in use). */
            txn->to_free.count = scheduled_before;
            return rc;
        }
    }
    cell->ref = 0;
    return rc;
}

int cc_collcell_count(const columnar_txn *txn, const cc_collcell *cell, cc_elemtype elem, uint64_t *out_count) {
    if (cell->dirty) {
        *out_count = cell->dirty->values.count;
        return 0;
    }
    return cc_coll_count(txn, cell->ref, elem, out_count);
}

int cc_collcell_get(const columnar_txn *txn, const cc_collcell *cell, cc_elemtype elem, bool keys, uint64_t index,
                    void *out_cell, bool *is_null) {
    if (cell->dirty) {
        const cc_mvec *vec = keys ? &cell->dirty->keys : &cell->dirty->values;
        memcpy(out_cell, cc_mvec_cell(vec, (uint32_t)index), vec->cell_bytes);
        *is_null = cc_mvec_is_null(vec, (uint32_t)index);
        return 0;
    }
    return cc_coll_get(txn, cell->ref, elem, keys, index, out_cell, is_null);
}
