/*
 * iter.c — iterating a table cluster by cluster in key order: the scan interface the query engine builds on.
 * The iterator remembers only the next key to visit, so it stays correct across tree changes in a write
 * transaction (clusters a write made private are reported from private memory).
 */
#include "kernels.h"
#include "tree.h"

int64_t columnar_array_get_int(const columnar_array *array, uint64_t index) {
    return cc_packed_get(array->data, (uint8_t)array->width, index) + array->base;
}

void columnar_array_decode_int(const columnar_array *array, uint64_t from, uint64_t count, int64_t *out) {
    cc_unpack_ints(array->data, array->width, from, count, out);
    cc_add_base(out, count, array->base);
}

int columnar_cluster_iter_init(columnar_txn *txn, columnar_table_id table, columnar_cluster_iter *iter) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, table, &ts))) return rc;
    iter->txn = txn;
    iter->table = table;
    iter->next_key = 0;
    iter->done = false;
    return 0;
}

int columnar_cluster_iter_init_from(columnar_txn *txn, columnar_table_id table, columnar_key from_key,
                                    columnar_cluster_iter *iter) {
    int rc = columnar_cluster_iter_init(txn, table, iter);
    if (rc == 0 && from_key > 0) iter->next_key = (uint64_t)from_key;
    return rc;
}

int columnar_cluster_iter_next(columnar_cluster_iter *iter, columnar_cluster *out_cluster) {
    if (iter->done) return COLUMNAR_ENOTFOUND;
    columnar_txn *txn = iter->txn;
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, iter->table, &ts))) return rc;
    for (;;) {
        cc_cluster_pos pos;
        if ((rc = cc_tree_seek_cluster(txn, &ts->root, (int64_t)iter->next_key, &pos))) return rc;
        if (!pos.found) {
            iter->done = true;
            return COLUMNAR_ENOTFOUND;
        }
        int64_t last;
        if (pos.leaf) {
            out_cluster->row_count = pos.leaf->count;
            out_cluster->keys = (columnar_array){ COLUMNAR_ENCODING_PACKED_INT, 64, pos.leaf->count,
                                                  pos.leaf->keys, 0 };
            out_cluster->ref = 0;
            last = (int64_t)pos.leaf->keys[pos.leaf->count - 1];
        } else {
            out_cluster->row_count = pos.keys.count;
            out_cluster->keys = (columnar_array){ COLUMNAR_ENCODING_PACKED_INT, pos.keys.width, pos.keys.count,
                                                  pos.keys.payload, pos.keys.base };
            out_cluster->ref = pos.cluster_ref;
            last = cc_node_int_at(&pos.keys, pos.keys.count - 1);
        }
        if (last == INT64_MAX) iter->done = true;
        else iter->next_key = (uint64_t)last + 1;
        if (out_cluster->row_count) return 0;
    }
}
