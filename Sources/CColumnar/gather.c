/*
 * gather.c — reading one column of many objects at once (columnar_obj_get_many and its integer form).
 *
 * Objects handed over in an arbitrary order (a sorted Results lists them by value, not by key) would each cost a
 * descent of the table's tree at a random key, a cache miss per level. Instead the keys are sorted once, with
 * their positions, by an LSD radix sort, and the table is walked cluster by cluster in key order: a key inside
 * the current cluster is found by stepping forward from the previous row, and only a key past it seeks the next
 * cluster. Each value goes back to its caller's position.
 */
#include "object.h"
#include "tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Receives the value of the object at caller position `index`. */
typedef void (*gather_sink)(void *context, uint64_t index, uint8_t type, const void *cell, bool is_null);

/* The bits needed to hold every value up to `max` (0 for 0). */
static unsigned bit_width(uint64_t max) {
    unsigned bits = 0;
    while (bits < 64 && (max >> bits) != 0) bits++;
    return bits;
}

/* Sorts `items` (count of them) by their low `bits` bits, using `scratch` of the same size; the result is in
 * `items`. 11-bit digits; a digit every item shares is skipped without moving anything. */
static void radix_sort(uint64_t *items, uint64_t *scratch, uint64_t count, unsigned bits) {
    enum { DIGIT_BITS = 11, BUCKETS = 1u << DIGIT_BITS };
    static _Thread_local uint64_t histogram[BUCKETS];
    uint64_t *from = items, *to = scratch;
    for (unsigned shift = 0; shift < bits; shift += DIGIT_BITS) {
        memset(histogram, 0, sizeof histogram);
        for (uint64_t i = 0; i < count; i++) histogram[(from[i] >> shift) & (BUCKETS - 1)]++;
        if (histogram[(from[0] >> shift) & (BUCKETS - 1)] == count) continue;
        uint64_t offset = 0;
        for (unsigned b = 0; b < BUCKETS; b++) {
            uint64_t n = histogram[b];
            histogram[b] = offset;
            offset += n;
        }
        for (uint64_t i = 0; i < count; i++) to[histogram[(from[i] >> shift) & (BUCKETS - 1)]++] = from[i];
        uint64_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != items) memcpy(items, from, count * sizeof *items);
}

static int compare_pairs(const void *a, const void *b) {
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The key order of the objects: `order` receives the caller positions 0..<count sorted by key (ties by
 * position). Keys already ascending need no work: *out_order stays NULL. Otherwise *out_order is allocated. */
static int key_order(const columnar_key *keys, uint64_t count, uint64_t **out_order) {
    *out_order = NULL;
    bool ascending = true;
    int64_t max_key = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (keys[i] < 0) return CC_MISUSE("key %lld at position %llu is negative", (long long)keys[i],
                                          (unsigned long long)i);
        if (i && keys[i] < keys[i - 1]) ascending = false;
        if (keys[i] > max_key) max_key = keys[i];
    }
    if (ascending) return 0;
    uint64_t *order = malloc(count * sizeof *order);
    if (!order) return -ENOMEM;
    unsigned position_bits = bit_width(count - 1), key_bits = bit_width((uint64_t)max_key);
    if (position_bits + key_bits <= 64) {
        /* Key and position packed in one word (key above position): one radix sort orders both. */
        uint64_t *scratch = malloc(count * sizeof *scratch);
        if (!scratch) {
            free(order);
            return -ENOMEM;
        }
        for (uint64_t i = 0; i < count; i++) order[i] = ((uint64_t)keys[i] << position_bits) | i;
        radix_sort(order, scratch, count, position_bits + key_bits);
        free(scratch);
        uint64_t mask = position_bits == 64 ? UINT64_MAX : (1ull << position_bits) - 1;
        for (uint64_t i = 0; i < count; i++) order[i] &= mask;
    } else {
        /* Keys too large to pack beside a position: sort (key, position) pairs. */
        int64_t (*pairs)[2] = malloc(count * sizeof *pairs);
        if (!pairs) {
            free(order);
            return -ENOMEM;
        }
        for (uint64_t i = 0; i < count; i++) {
            pairs[i][0] = keys[i];
            pairs[i][1] = (int64_t)i;
        }
        qsort(pairs, count, sizeof *pairs, compare_pairs);
        for (uint64_t i = 0; i < count; i++) order[i] = (uint64_t)pairs[i][1];
        free(pairs);
    }
    *out_order = order;
    return 0;
}

/* The row of `key` in the cluster at `pos`, searching from `from` (keys visited in ascending order only move
 * forward); sets *found. */
static uint32_t row_in_cluster(const cc_cluster_pos *pos, int64_t key, uint32_t from, bool *found) {
    if (pos->leaf) {
        uint32_t low = from, high = pos->leaf->count;
        while (low < high) {
            uint32_t mid = low + (high - low) / 2;
            if ((int64_t)pos->leaf->keys[mid] < key) low = mid + 1;
            else high = mid;
        }
        *found = low < pos->leaf->count && (int64_t)pos->leaf->keys[low] == key;
        return low;
    }
    /* Keys in order usually come one row after the other (the same row again for a key asked twice). */
    uint64_t row = (uint64_t)from + 1;
    if (row >= pos->keys.count || cc_node_int_at(&pos->keys, row) != key) {
        row = from;
        if (row >= pos->keys.count || cc_node_int_at(&pos->keys, row) != key)
            row = cc_packed_lower_bound(&pos->keys, key);
    }
    *found = row < pos->keys.count && cc_node_int_at(&pos->keys, row) == key;
    return (uint32_t)row;
}

static int64_t cluster_last_key(const cc_cluster_pos *pos) {
    return pos->leaf ? (int64_t)pos->leaf->keys[pos->leaf->count - 1]
                     : cc_node_int_at(&pos->keys, pos->keys.count - 1);
}

static int gather(columnar_txn *txn, columnar_table_id table, columnar_col_id column, const columnar_key *keys,
                  uint64_t count, gather_sink sink, void *context, uint64_t *out_failed_index) {
    if (out_failed_index) *out_failed_index = UINT64_MAX;
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    const cc_column *col;
    if ((rc = cc_visible_column(txn, table, column, &col))) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (col->collection != COLUMNAR_COLLECTION_NONE)
        return CC_MISUSE("%s.%s is a collection: use the columnar_coll_* functions", schema->name, col->name);
    if (count == 0) return 0;
    if (!keys) return CC_MISUSE("no keys for %llu objects", (unsigned long long)count);
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, table, &ts))) return rc;
    uint64_t *order;
    if ((rc = key_order(keys, count, &order))) return rc;
    cc_cluster_pos cluster = { .found = false };
    int64_t cluster_first = 0, cluster_last = -1;
    uint32_t next_row = 0;
    for (uint64_t n = 0; n < count; n++) {
        uint64_t index = order ? order[n] : n;
        int64_t key = keys[index];
        if (!cluster.found || key < cluster_first || key > cluster_last) {
            if ((rc = cc_tree_seek_cluster(txn, &ts->root, key, &cluster))) break;
            if (!cluster.found || (cluster.leaf ? cluster.leaf->count : cluster.keys.count) == 0) {
                cluster.found = false;
                rc = COLUMNAR_ENOTFOUND;
            } else {
                cluster_first = cluster.leaf ? (int64_t)cluster.leaf->keys[0] : cc_node_int_at(&cluster.keys, 0);
                cluster_last = cluster_last_key(&cluster);
                next_row = 0;
            }
        }
        bool found = false;
        uint32_t row = 0;
        if (rc == 0) row = row_in_cluster(&cluster, key, next_row, &found);
        if (!found) {
            if (out_failed_index) *out_failed_index = index;
            rc = cc_error(COLUMNAR_ENOTFOUND, 0, "", "table %s has no object with key %lld (position %llu)",
                          schema->name, (long long)key, (unsigned long long)index);
            break;
        }
        next_row = row;
        cc_rowpos pos = { cluster.leaf, cluster.cluster_ref, row };
        uint8_t cell[16];
        bool is_null;
        if ((rc = cc_row_get(txn, schema, &pos, column, cell, &is_null))) break;
        sink(context, index, col->type, cell, is_null);
    }
    free(order);
    return rc;
}

static void value_sink(void *context, uint64_t index, uint8_t type, const void *cell, bool is_null) {
    cc_value_from_cell(type, cell, is_null, &((columnar_value *)context)[index]);
}

int columnar_obj_get_many(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                          const columnar_key *keys, uint64_t count, columnar_value *out_values,
                          uint64_t *out_failed_index) {
    if (count && !out_values) return CC_MISUSE("no room for the values of %llu objects", (unsigned long long)count);
    return gather(txn, table, column, keys, count, value_sink, out_values, out_failed_index);
}

typedef struct int_sink_context {
    int64_t *values;
    bool *nulls;
} int_sink_context;

static void int_sink(void *context, uint64_t index, uint8_t type, const void *cell, bool is_null) {
    int_sink_context *ints = context;
    int64_t value = 0;
    (void)type;   /* int, bool and link cells all hold an int64_t */
    if (!is_null) memcpy(&value, cell, sizeof value);
    ints->values[index] = value;
    if (ints->nulls) ints->nulls[index] = is_null;
}

int columnar_obj_get_many_int(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                              const columnar_key *keys, uint64_t count, int64_t *out_values, bool *out_is_null,
                              uint64_t *out_failed_index) {
    int rc = cc_txn_check(txn);
    if (rc) return rc;
    const cc_column *col;
    if ((rc = cc_visible_column(txn, table, column, &col))) return rc;
    if (col->type != COLUMNAR_TYPE_INT && col->type != COLUMNAR_TYPE_BOOL && col->type != COLUMNAR_TYPE_LINK)
        return cc_error(COLUMNAR_ETYPE, 0, "", "%s.%s holds %s values, not integers",
                        cc_table_schema_get(txn, table)->name, col->name, cc_type_name(col->type));
    if (count && !out_values) return CC_MISUSE("no room for the values of %llu objects", (unsigned long long)count);
    int_sink_context context = { out_values, out_is_null };
    return gather(txn, table, column, keys, count, int_sink, &context, out_failed_index);
}
