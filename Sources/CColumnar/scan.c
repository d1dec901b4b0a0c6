/*
 * scan.c — scans: a table walked cluster by cluster in key order, each cluster's columns handed out as views
 * that the kernels read directly.
 *
 * The walk keeps a descent stack (one frame per inner node on the path to the current cluster), so moving to the
 * next cluster is a step to the next sibling, not a new descent from the root as columnar_cluster_iter_next does;
 * with 256-row clusters a scan of ten million objects visits 39,000 clusters and the per-cluster cost is most of
 * what a scan costs beyond the kernels themselves.
 *
 * A write transaction's tree mixes private nodes (cc_tnode, changed by the transaction) with committed subtrees;
 * a frame is either kind. A committed cluster's views point straight into the mapping, after cc_leaf_open has
 * validated the column's nodes, and cost no allocation. A private leaf's values live in cc_mvec cells: ints,
 * floats, doubles and ids are already arrays in a view's encoding (ints as PACKED_INT of width 64, null flags as
 * one byte per row, i.e. PACKED_INT of width 8) and are viewed in place; timestamps and strings are encoded into
 * scratch memory the scan owns, one buffer per column id, reused from cluster to cluster.
 *
 * What limits a scan of committed clusters is memory latency, not bandwidth: each cluster is a chain of
 * dependent reads (inner node -> CLUSTER -> COLUMN -> VALUES), each a likely cache miss, which would cost more
 * than the kernel's work on the cluster's 256 rows. So while the caller works on one cluster, the scan prefetches
 * the next ones in a three-stage pipeline (prefetch_ahead): the CLUSTER node four clusters ahead, the COLUMN
 * nodes three ahead, the arrays two ahead, for the columns the caller viewed in the previous cluster.
 *
 * Nothing read from the file is trusted: nodes are validated as they are read, a committed cluster must hold
 * rows, at most CC_MAX_LEAF_ROWS of them, with a first key above the first key of the cluster before (which also
 * stops a damaged tree that reaches one node twice), and the stack is as deep as a tree may be
 * (CF_MAX_TREE_DEPTH). Prefetching reads only inside the version's used size and uses what it reads as hints.
 */
#include "kernels.h"
#include "object.h"

#include <errno.h>
#include <stdlib.h>

/* Columns whose arrays are prefetched for the clusters ahead: a query's inner loop reads a few. */
#define SCAN_HINT_COLUMNS 8u
/* Bytes of a column's array prefetched per cluster: a 256-row cluster of 64-bit values. */
#define SCAN_PREFETCH_ARRAY_BYTES 2048u
/* How many clusters ahead each stage of the prefetch pipeline works: arrays two clusters ahead leave them the
 * kernel time of two clusters to arrive (measured better than one or three on a 10-million-row scan); each
 * earlier stage runs one cluster before the stage that follows the refs it brings in. */
#define SCAN_AHEAD_ARRAY 2u
#define SCAN_AHEAD_COLUMN (SCAN_AHEAD_ARRAY + 1u)
#define SCAN_AHEAD_CLUSTER (SCAN_AHEAD_ARRAY + 2u)

typedef struct scan_frame {
    cc_tnode *inner;         /* a private inner node, or NULL for the committed one in `node` */
    cc_node node;            /* committed inner node: children at positions 1 ... child_count */
    uint32_t next_child;
    uint32_t child_count;
} scan_frame;

typedef struct scan_scratch {
    uint8_t *bytes;
    size_t capacity;
} scan_scratch;

struct columnar_scan {
    columnar_txn *txn;
    uint32_t table;
    cc_child root;
    bool root_pending;       /* the root has not been entered yet */
    bool done;
    int failure;             /* a corruption found by columnar_scan_next, returned again by every later call */
    uint32_t depth;
    scan_frame frames[CF_MAX_TREE_DEPTH];
    /* The current cluster: a private leaf, or a committed CLUSTER node with its keys. */
    bool has_cluster;
    cc_tnode *leaf;
    cc_node cluster;
    cc_node keys;
    uint64_t row_count;
    bool has_first_key;
    int64_t first_key;       /* the first key of the cluster reported last */
    /* Columns viewed in the current cluster, and in the one before (the prefetch hint). */
    uint32_t viewed_count;
    uint32_t viewed[SCAN_HINT_COLUMNS];
    uint32_t hint_count;
    uint32_t hints[SCAN_HINT_COLUMNS];
    uint32_t scratch_count;
    scan_scratch *scratch;   /* per column id: encoded arrays of private leaves */
};

int columnar_scan_open(columnar_txn *txn, columnar_table_id table, columnar_scan **out_scan) {
    if (!out_scan) return CC_MISUSE("out_scan is NULL");
    *out_scan = NULL;
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, table, &ts))) return rc;
    columnar_scan *scan = calloc(1, sizeof *scan);
    if (!scan) return -ENOMEM;
    scan->txn = txn;
    scan->table = table;
    scan->root = ts->root;
    scan->root_pending = true;
    *out_scan = scan;
    return 0;
}

void columnar_scan_close(columnar_scan *scan) {
    if (!scan) return;
    for (uint32_t c = 0; c < scan->scratch_count; c++) free(scan->scratch[c].bytes);
    free(scan->scratch);
    free(scan);
}

uint64_t columnar_scan_max_rows(void) { return CC_MAX_LEAF_ROWS; }

/* ---------------------------------------------------------------------------------------------------------- */
/* Walking the tree                                                                                             */
/* ---------------------------------------------------------------------------------------------------------- */

static int push_frame(columnar_scan *scan, cc_tnode *inner, const cc_node *node, uint32_t child_count) {
    if (scan->depth >= CF_MAX_TREE_DEPTH)
        return CC_CORRUPT(node ? node->ref : 0, "the tree of table %u is deeper than %u levels (a ref cycle?)",
                          scan->table, CF_MAX_TREE_DEPTH);
    scan_frame *frame = &scan->frames[scan->depth++];
    frame->inner = inner;
    if (node) frame->node = *node;
    frame->next_child = 0;
    frame->child_count = child_count;
    return 0;
}

/* Enters `child`: an inner node becomes a new frame; a cluster or private leaf becomes the current cluster
 * (*out_is_cluster). An empty private node or a ref of 0 is passed over. */
static int enter(columnar_scan *scan, const cc_child *child, bool *out_is_cluster) {
    *out_is_cluster = false;
    if (child->node) {
        cc_tnode *n = child->node;
        if (n->count == 0) return 0;   /* emptied by deletions in this transaction */
        if (!n->is_leaf) return push_frame(scan, n, NULL, n->count);
        scan->leaf = n;
        scan->row_count = n->count;
        *out_is_cluster = true;
        return 0;
    }
    if (!child->ref) return 0;
    cc_node node, keys;
    int rc = cc_tree_node_read(scan->txn, child->ref, &node, &keys);
    if (rc) return rc;
    if (node.role == CF_ROLE_INNER) return push_frame(scan, NULL, &node, node.count - 1);
    scan->leaf = NULL;
    scan->cluster = node;
    scan->keys = keys;
    scan->row_count = keys.count;
    *out_is_cluster = true;
    return 0;
}

/* Checks the cluster just entered and describes it. */
static int accept_cluster(columnar_scan *scan, columnar_cluster *out) {
    uint64_t rows = scan->row_count;
    int64_t first;
    if (scan->leaf) {
        first = (int64_t)scan->leaf->keys[0];
        out->keys = (columnar_array){ COLUMNAR_ENCODING_PACKED_INT, 64, rows, scan->leaf->keys, 0 };
        out->ref = 0;
    } else {
        if (rows == 0)
            return CC_CORRUPT(scan->cluster.ref, "cluster at %llu has no rows", (unsigned long long)scan->cluster.ref);
        first = cc_node_int_at(&scan->keys, 0);
        out->keys = (columnar_array){ COLUMNAR_ENCODING_PACKED_INT, scan->keys.width, rows, scan->keys.payload,
                                      scan->keys.base };
        out->ref = scan->cluster.ref;
    }
    uint64_t ref = scan->leaf ? 0 : scan->cluster.ref;
    if (rows > CC_MAX_LEAF_ROWS)
        return CC_CORRUPT(ref, "a cluster of table %u holds %llu rows, more than the %u any writer makes",
                          scan->table, (unsigned long long)rows, CC_MAX_LEAF_ROWS);
    /* First keys must rise from cluster to cluster, so a damaged tree that reaches a node twice fails here rather
     * than being walked again and again. (Only the first key is read: it shares a cache line with the keys'
     * header, and the order within a cluster matters to no kernel.) */
    if (scan->has_first_key && first <= scan->first_key)
        return CC_CORRUPT(ref, "a cluster of table %u starts at key %lld, after a cluster that starts at %lld: the "
                          "tree is out of order", scan->table, (long long)first, (long long)scan->first_key);
    scan->has_first_key = true;
    scan->first_key = first;
    scan->has_cluster = true;
    out->row_count = rows;
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Prefetching the clusters ahead                                                                               */
/* ---------------------------------------------------------------------------------------------------------- */

/* Child `index` of the REFS node at `ref`, read only when the node's header and that slot lie inside the version
 * (else 0). The node is not validated: the result is a prefetch address, never followed for data. */
static uint64_t peek_child(const columnar_scan *scan, uint64_t ref, uint32_t index) {
    uint64_t used = scan->txn->used_size;
    if (ref < CF_HEADER_BYTES || (ref & 7) || ref >= used || used - ref < CF_NODE_HEADER_BYTES) return 0;
    const uint8_t *node = scan->txn->db->map.base + ref;
    cf_node_header header;
    memcpy(&header, node, sizeof header);
    if (header.encoding != COLUMNAR_ENCODING_REFS || index >= header.count) return 0;
    uint64_t slot_end = CF_NODE_HEADER_BYTES + ((uint64_t)index + 1) * 8;
    if (used - ref < slot_end) return 0;
    uint64_t child;
    memcpy(&child, node + slot_end - 8, 8);
    return child;
}

/* Prefetches `bytes` bytes from `ref` (clipped to the version), a cache line at a time. */
static void prefetch_span(const columnar_scan *scan, uint64_t ref, uint64_t bytes) {
    uint64_t used = scan->txn->used_size;
    if (ref < CF_HEADER_BYTES || ref >= used) return;
    if (bytes > used - ref) bytes = used - ref;
    const uint8_t *at = scan->txn->db->map.base + ref;
    for (uint64_t offset = 0; offset < bytes; offset += 64) __builtin_prefetch(at + offset);
}

/* While the caller works on the current committed cluster, starts the memory reads of the next few (siblings
 * under the same inner node; at the end of an inner node the pipeline restarts, once per 256 clusters). */
static void prefetch_ahead(columnar_scan *scan) {
    if (scan->depth == 0) return;
    const scan_frame *frame = &scan->frames[scan->depth - 1];
    if (frame->inner) return;
    uint32_t current = frame->next_child - 1;
    uint32_t ahead = frame->child_count - 1 - current;
    if (ahead >= SCAN_AHEAD_CLUSTER)
        prefetch_span(scan, cc_node_ref_at(&frame->node, current + SCAN_AHEAD_CLUSTER + 1), 64);
    if (ahead >= SCAN_AHEAD_COLUMN) {
        uint64_t cluster = cc_node_ref_at(&frame->node, current + SCAN_AHEAD_COLUMN + 1);
        prefetch_span(scan, peek_child(scan, cluster, 0), 64);
        for (uint32_t h = 0; h < scan->hint_count; h++)
            prefetch_span(scan, peek_child(scan, cluster, scan->hints[h] + 1), 64);
    }
    if (ahead >= SCAN_AHEAD_ARRAY) {
        uint64_t cluster = cc_node_ref_at(&frame->node, current + SCAN_AHEAD_ARRAY + 1);
        for (uint32_t h = 0; h < scan->hint_count; h++) {
            uint64_t column = peek_child(scan, cluster, scan->hints[h] + 1);
            for (uint32_t part = 0; part < 3; part++) {
                uint64_t array = peek_child(scan, column, part);
                if (array) prefetch_span(scan, array, CF_NODE_HEADER_BYTES + SCAN_PREFETCH_ARRAY_BYTES);
            }
        }
    }
}

int columnar_scan_next(columnar_scan *scan, columnar_cluster *out_cluster) {
    if (!scan || !out_cluster) return CC_MISUSE("columnar_scan_next needs a scan and a cluster to fill");
    if (scan->failure) return scan->failure;
    int rc = cc_txn_check(scan->txn);
    if (rc) return rc;
    scan->has_cluster = false;
    if (scan->viewed_count) {
        memcpy(scan->hints, scan->viewed, scan->viewed_count * sizeof *scan->viewed);
        scan->hint_count = scan->viewed_count;
        scan->viewed_count = 0;
    }
    if (scan->done) return COLUMNAR_ENOTFOUND;
    for (;;) {
        const cc_child *child;
        cc_child committed_child;
        if (scan->root_pending) {
            scan->root_pending = false;
            child = &scan->root;
        } else {
            if (scan->depth == 0) {
                scan->done = true;
                return COLUMNAR_ENOTFOUND;
            }
            scan_frame *frame = &scan->frames[scan->depth - 1];
            if (frame->next_child == frame->child_count) {
                scan->depth--;
                continue;
            }
            uint32_t index = frame->next_child++;
            if (frame->inner) {
                child = &frame->inner->children[index];
            } else {
                committed_child = (cc_child){ cc_node_ref_at(&frame->node, index + 1), NULL };
                if (!committed_child.ref) {
                    rc = CC_CORRUPT(frame->node.ref, "inner node at %llu has a null child",
                                    (unsigned long long)frame->node.ref);
                    break;
                }
                child = &committed_child;
            }
        }
        bool is_cluster;
        if ((rc = enter(scan, child, &is_cluster))) break;
        if (is_cluster) {
            if ((rc = accept_cluster(scan, out_cluster))) break;
            if (!scan->leaf) prefetch_ahead(scan);
            return 0;
        }
    }
    scan->failure = rc;
    return rc;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Column views                                                                                                 */
/* ---------------------------------------------------------------------------------------------------------- */

static columnar_array array_of(const cc_node *node) {
    return (columnar_array){ (columnar_encoding)node->encoding, node->width, node->count, node->payload, node->base };
}

static int view_committed(columnar_scan *scan, uint32_t column, const cc_column *col, columnar_column_view *out) {
    const cc_node *cluster = &scan->cluster;
    uint64_t leaf_ref = column + 1 < cluster->count ? cc_node_ref_at(cluster, column + 1) : 0;
    if (!leaf_ref) {
        out->all_default = true;
        return 0;
    }
    cc_leaf leaf;
    int rc = cc_leaf_open(scan->txn, leaf_ref, col->type, col->collection, &leaf);
    if (rc) return rc;
    if (leaf.count != scan->row_count)
        return CC_CORRUPT(leaf_ref, "column leaf at %llu has %u values for the %llu rows of its cluster",
                          (unsigned long long)leaf_ref, leaf.count, (unsigned long long)scan->row_count);
    out->values = array_of(&leaf.values);
    if (leaf.long_strings) out->blob = array_of(&leaf.second);
    else if (col->type == COLUMNAR_TYPE_TIMESTAMP) out->nanos = array_of(&leaf.second);
    if (leaf.nulls.ref) out->nulls = array_of(&leaf.nulls);
    return 0;
}

/* Scratch memory of at least `bytes` bytes for column `column`, kept until the scan closes. */
static uint8_t *scratch_for(columnar_scan *scan, uint32_t column, size_t bytes) {
    if (column >= scan->scratch_count) {
        uint32_t count = column + 1;
        scan_scratch *grown = realloc(scan->scratch, count * sizeof *grown);
        if (!grown) return NULL;
        memset(grown + scan->scratch_count, 0, (count - scan->scratch_count) * sizeof *grown);
        scan->scratch = grown;
        scan->scratch_count = count;
    }
    scan_scratch *s = &scan->scratch[column];
    if (s->capacity < bytes) {
        size_t capacity = s->capacity ? s->capacity : 4096;
        while (capacity < bytes) capacity *= 2;
        uint8_t *grown = realloc(s->bytes, capacity);
        if (!grown) return NULL;
        s->bytes = grown;
        s->capacity = capacity;
    }
    return s->bytes;
}

/* Timestamps: seconds as PACKED_INT of width 64, then nanoseconds as PACKED_INT of width 32. */
static int encode_timestamps(columnar_scan *scan, uint32_t column, const cc_mvec *vec, uint64_t rows,
                             columnar_column_view *out) {
    uint8_t *bytes = scratch_for(scan, column, rows * 12);
    if (!bytes) return -ENOMEM;
    int64_t *seconds = (int64_t *)bytes;
    int32_t *nanos = (int32_t *)(bytes + rows * 8);
    const cc_ts *cells = (const cc_ts *)vec->cells;
    for (uint64_t i = 0; i < rows; i++) {
        seconds[i] = cells[i].seconds;
        nanos[i] = cells[i].nanoseconds;
    }
    out->values = (columnar_array){ COLUMNAR_ENCODING_PACKED_INT, 64, rows, seconds, 0 };
    out->nanos = (columnar_array){ COLUMNAR_ENCODING_PACKED_INT, 32, rows, nanos, 0 };
    return 0;
}

/* Strings, binary and mixed values in the long form: end offsets (PACKED_INT of width 64), then the blob. A null row
 * holds no bytes, as in a committed leaf. */
static int encode_strings(columnar_scan *scan, uint32_t column, const cc_mvec *vec, uint64_t rows,
                          columnar_column_view *out) {
    const cc_bytes *cells = (const cc_bytes *)vec->cells;
    uint64_t total = 0;
    for (uint64_t i = 0; i < rows; i++) total += cc_mvec_is_null(vec, (uint32_t)i) ? 0 : cells[i].size;
    uint8_t *bytes = scratch_for(scan, column, rows * 8 + total + 1);
    if (!bytes) return -ENOMEM;
    int64_t *ends = (int64_t *)bytes;
    uint8_t *blob = bytes + rows * 8;
    uint64_t offset = 0;
    for (uint64_t i = 0; i < rows; i++) {
        uint64_t size = cc_mvec_is_null(vec, (uint32_t)i) ? 0 : cells[i].size;
        if (size) memcpy(blob + offset, cells[i].data, size);
        offset += size;
        ends[i] = (int64_t)offset;
    }
    out->values = (columnar_array){ COLUMNAR_ENCODING_PACKED_INT, 64, rows, ends, 0 };
    out->blob = (columnar_array){ COLUMNAR_ENCODING_BYTES, 8, total, blob, 0 };
    return 0;
}

static int view_private(columnar_scan *scan, uint32_t column, const cc_column *col, columnar_column_view *out) {
    cc_tnode *leaf = scan->leaf;
    /* A leaf made private before a column was added has no vector for it yet: every row holds the default. */
    if (column >= leaf->column_count || leaf->columns[column].removed) {
        out->all_default = true;
        return 0;
    }
    const cc_mvec *vec = &leaf->columns[column];
    uint64_t rows = scan->row_count;
    if (vec->count < rows)
        return CC_CORRUPT(0, "a private leaf of table %u holds %u values of column %s for %llu rows", scan->table,
                          vec->count, col->name, (unsigned long long)rows);
    if (vec->nulls) {
        uint8_t any = 0;
        for (uint64_t i = 0; i < rows; i++) any |= vec->nulls[i];
        if (any) out->nulls = (columnar_array){ COLUMNAR_ENCODING_PACKED_INT, 8, rows, vec->nulls, 0 };
    }
    switch (col->type) {
    case COLUMNAR_TYPE_FLOAT:
        out->values = (columnar_array){ COLUMNAR_ENCODING_FLOAT, 32, rows, vec->cells, 0 };
        return 0;
    case COLUMNAR_TYPE_DOUBLE:
        out->values = (columnar_array){ COLUMNAR_ENCODING_DOUBLE, 64, rows, vec->cells, 0 };
        return 0;
    case COLUMNAR_TYPE_OBJECTID: case COLUMNAR_TYPE_UUID: case COLUMNAR_TYPE_DECIMAL128:
        out->values = (columnar_array){ COLUMNAR_ENCODING_FIXED, vec->cell_bytes, rows, vec->cells, 0 };
        return 0;
    case COLUMNAR_TYPE_TIMESTAMP:
        return encode_timestamps(scan, column, vec, rows, out);
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: case COLUMNAR_TYPE_MIXED:
        return encode_strings(scan, column, vec, rows, out);
    default:   /* INT, BOOL (0/1) and LINK cells are int64s */
        out->values = (columnar_array){ COLUMNAR_ENCODING_PACKED_INT, 64, rows, vec->cells, 0 };
        return 0;
    }
}

int columnar_scan_column(columnar_scan *scan, columnar_col_id column, columnar_column_view *out_view) {
    if (!scan || !out_view) return CC_MISUSE("columnar_scan_column needs a scan and a view to fill");
    if (scan->failure) return scan->failure;
    int rc = cc_txn_check(scan->txn);
    if (rc) return rc;
    const cc_column *col;
    if ((rc = cc_visible_column(scan->txn, scan->table, column, &col))) return rc;
    if (col->collection != COLUMNAR_COLLECTION_NONE)
        return CC_MISUSE("column %s is a collection: scans view single-valued columns only", col->name);
    if (!scan->has_cluster) return CC_MISUSE("the scan has no current cluster (call columnar_scan_next first)");
    bool seen = false;
    for (uint32_t v = 0; v < scan->viewed_count && !seen; v++) seen = scan->viewed[v] == column;
    if (!seen && scan->viewed_count < SCAN_HINT_COLUMNS) scan->viewed[scan->viewed_count++] = column;
    memset(out_view, 0, sizeof *out_view);
    out_view->type = (columnar_type)col->type;
    out_view->count = scan->row_count;
    out_view->nullable = (col->flags & CF_COL_FLAG_NULLABLE) != 0;
    rc = scan->leaf ? view_private(scan, column, col, out_view) : view_committed(scan, column, col, out_view);
    if (rc) memset(out_view, 0, sizeof *out_view);
    return rc;
}
