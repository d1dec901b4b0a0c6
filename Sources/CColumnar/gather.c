/*
 * gather.c — reading one column of many objects at once (columnar_obj_get_many and its integer form).
 *
 * Objects handed over in an arbitrary order (a sorted Results lists them by value, not by key) would each cost a
 * descent of the table's tree at a random key, a cache miss per level. Instead the keys are sorted once, with
 * their positions, by an LSD radix sort, and the table is walked cluster by cluster in key order: a key inside
 * the current cluster is found by stepping forward from the previous row, and only a key past it seeks the next
 * cluster. The values are written in key order and then scattered back to the caller's positions in one loop,
 * so no load in the walk waits on a random access.
 */
#include "object.h"
#include "tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Where the values go: one or two arrays of fixed-size elements (the values; the nulls of the integer form). A
 * sink stores the value of the `slot`-th object into them. */
typedef struct gather_output {
    void *arrays[2];
    size_t element_size[2];
    unsigned array_count;
} gather_output;
typedef void (*gather_sink)(void *const arrays[2], uint64_t slot, uint8_t type, const void *cell, bool is_null);

/* The bits needed to hold every value up to `max` (0 for 0). */
static unsigned bit_width(uint64_t max) {
    unsigned bits = 0;
    while (bits < 64 && (max >> bits) != 0) bits++;
    return bits;
}

/* Sorts `items` (count of them) by their bits [low, high), stably, using `scratch` of the same size; the result
 * is in `items`. 11-bit digits; a digit every item shares is skipped without moving anything. */
static void radix_sort(uint64_t *items, uint64_t *scratch, uint64_t count, unsigned low, unsigned high) {
    enum { DIGIT_BITS = 11, BUCKETS = 1u << DIGIT_BITS };
    static _Thread_local uint64_t histogram[BUCKETS];
    uint64_t *from = items, *to = scratch;
    for (unsigned shift = low; shift < high; shift += DIGIT_BITS) {
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

/* key_order's entries for keys that are distinct and dense (below 4 x count, as a table's keys are when few of
 * its objects were deleted): each key's position goes into a table indexed by key, which is then read in key
 * order. One pass of random stores instead of a radix sort's passes. Returns false, with `order` unspecified,
 * when the keys are too sparse, a key repeats, or the table cannot be allocated. */
static bool dense_order(const columnar_key *keys, uint64_t count, uint64_t max_key, unsigned position_bits,
                        uint64_t *order) {
    if (count >= UINT32_MAX || max_key / 4 >= count) return false;
    uint32_t *position_of_key = malloc((max_key + 1) * sizeof *position_of_key);
    if (!position_of_key) return false;
    memset(position_of_key, 0xff, (max_key + 1) * sizeof *position_of_key);
    for (uint64_t i = 0; i < count; i++) {
        if (position_of_key[keys[i]] != UINT32_MAX) {
            free(position_of_key);
            return false;
        }
        position_of_key[keys[i]] = (uint32_t)i;
    }
    uint64_t n = 0;
    for (uint64_t key = 0; key <= max_key; key++)
        if (position_of_key[key] != UINT32_MAX) order[n++] = (key << position_bits) | position_of_key[key];
    free(position_of_key);
    return true;
}

/* The objects in key order. Keys already ascending need no work: the walk reads `keys` itself and *out_order
 * stays NULL. Otherwise *out_order (allocated) holds `count` entries in key order (ties by position), each the
 * key above its caller position: key = entry >> *out_position_bits, position = entry & (2^bits - 1). Both come
 * from one sequential array, so the walk reads nothing at random. */
static int key_order(const columnar_key *keys, uint64_t count, uint64_t **out_order, unsigned *out_position_bits) {
    *out_order = NULL;
    *out_position_bits = 0;
    bool ascending = true;
    int64_t max_key = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (keys[i] < 0) return CC_MISUSE("key %lld at position %llu is negative", (long long)keys[i],
                                          (unsigned long long)i);
        if (i && keys[i] < keys[i - 1]) ascending = false;
        if (keys[i] > max_key) max_key = keys[i];
    }
    if (ascending) return 0;
    unsigned position_bits = bit_width(count - 1), key_bits = bit_width((uint64_t)max_key);
    if (position_bits + key_bits > 64)
        return 1;   /* keys too large to pack beside a position: the caller sorts pairs instead */
    uint64_t *order = malloc(count * sizeof *order), *scratch = malloc(count * sizeof *scratch);
    if (!order || !scratch) {
        free(order);
        free(scratch);
        return -ENOMEM;
    }
    if (!dense_order(keys, count, (uint64_t)max_key, position_bits, order)) {
        for (uint64_t i = 0; i < count; i++) order[i] = ((uint64_t)keys[i] << position_bits) | i;
        /* By the key bits only: the entries start in position order and the sort is stable, so ties stay in it. */
        radix_sort(order, scratch, count, position_bits, position_bits + key_bits);
    }
    free(scratch);
    *out_order = order;
    *out_position_bits = position_bits;
    return 0;
}

/* key_order for keys too large to pack: (key, position) pairs sorted by comparison. */
static int pair_order(const columnar_key *keys, uint64_t count, int64_t (**out_pairs)[2]) {
    int64_t (*pairs)[2] = malloc(count * sizeof *pairs);
    if (!pairs) return -ENOMEM;
    for (uint64_t i = 0; i < count; i++) {
        pairs[i][0] = keys[i];
        pairs[i][1] = (int64_t)i;
    }
    qsort(pairs, count, sizeof *pairs, compare_pairs);
    *out_pairs = pairs;
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

/* Moves element n of `from` to element positions[n] of `to` (the keys' order back to the caller's). */
static void scatter(void *to, const void *from, size_t size, uint64_t count, const uint64_t *order,
                    unsigned position_bits, const int64_t (*pairs)[2]) {
    uint64_t mask = (1ull << position_bits) - 1;   /* position_bits < 64: a key needs at least one bit */
    for (uint64_t n = 0; n < count; n++) {
        uint64_t position = order ? order[n] & mask : (uint64_t)pairs[n][1];
        if (size == 8) ((uint64_t *)to)[position] = ((const uint64_t *)from)[n];
        else if (size == 1) ((uint8_t *)to)[position] = ((const uint8_t *)from)[n];
        else memcpy((char *)to + position * size, (const char *)from + n * size, size);
    }
}

/* Reads `column` of the objects `keys` into `output` through `sink`; `integers_only` refuses columns other than
 * INT, BOOL and LINK (the integer form). */
static int gather(columnar_txn *txn, columnar_table_id table, columnar_col_id column, const columnar_key *keys,
                  uint64_t count, bool integers_only, gather_sink sink, const gather_output *output,
                  uint64_t *out_failed_index) {
    if (out_failed_index) *out_failed_index = UINT64_MAX;
    const cc_column *col;
    int rc = cc_readable_value_column(txn, table, column, &col);
    if (rc) return rc;
    const cc_table_schema *schema = cc_table_schema_get(txn, table);
    if (integers_only && col->type != COLUMNAR_TYPE_INT && col->type != COLUMNAR_TYPE_BOOL &&
        col->type != COLUMNAR_TYPE_LINK)
        return cc_error(COLUMNAR_ETYPE, 0, "", "%s.%s holds %s values, not integers", schema->name, col->name,
                        cc_type_name(col->type));
    if (count && !output->arrays[0])
        return CC_MISUSE("no room for the values of %llu objects", (unsigned long long)count);
    if (count == 0) return 0;
    if (!keys) return CC_MISUSE("no keys for %llu objects", (unsigned long long)count);
    cc_tstate *ts;
    if ((rc = cc_table_state(txn, table, &ts))) return rc;
    uint64_t *order = NULL;
    int64_t (*pairs)[2] = NULL;
    unsigned position_bits = 0;
    rc = key_order(keys, count, &order, &position_bits);
    if (rc == 1) rc = pair_order(keys, count, &pairs);
    if (rc) return rc;
    /* Out of the caller's order, values are written in key order to scratch arrays and scattered at the end:
     * sequential stores in the walk, and a scatter loop whose stores do not wait on the walk's loads. */
    bool permuted = order || pairs;
    void *targets[2] = { output->arrays[0], output->arrays[1] };
    for (unsigned a = 0; permuted && a < output->array_count; a++) {
        if (!output->arrays[a]) continue;
        if (!(targets[a] = malloc(count * output->element_size[a]))) {
            rc = -ENOMEM;
            goto done;
        }
    }
    uint64_t mask = position_bits ? (1ull << position_bits) - 1 : 0;
    cc_cluster_pos cluster = { .found = false };
    int64_t cluster_first = 0, cluster_last = -1;
    uint32_t next_row = 0;
    for (uint64_t n = 0; n < count; n++) {
        int64_t key = order ? (int64_t)(order[n] >> position_bits) : pairs ? pairs[n][0] : keys[n];
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
            uint64_t position = order ? order[n] & mask : pairs ? (uint64_t)pairs[n][1] : n;
            if (out_failed_index) *out_failed_index = position;
            rc = cc_error(COLUMNAR_ENOTFOUND, 0, "", "table %s has no object with key %lld (position %llu)",
                          schema->name, (long long)key, (unsigned long long)position);
            break;
        }
        next_row = row;
        cc_rowpos pos = { cluster.leaf, cluster.cluster_ref, row };
        uint8_t cell[16];
        bool is_null;
        if ((rc = cc_row_get(txn, schema, &pos, column, cell, &is_null))) break;
        sink(targets, n, col->type, cell, is_null);
    }
    if (rc == 0 && permuted) {
        for (unsigned a = 0; a < output->array_count; a++)
            if (output->arrays[a])
                scatter(output->arrays[a], targets[a], output->element_size[a], count, order, position_bits, pairs);
    }
done:
    if (permuted)
        for (unsigned a = 0; a < output->array_count; a++)
            if (targets[a] != output->arrays[a]) free(targets[a]);
    free(order);
    free(pairs);
    return rc;
}

static void value_sink(void *const arrays[2], uint64_t slot, uint8_t type, const void *cell, bool is_null) {
    cc_value_from_cell(type, cell, is_null, &((columnar_value *)arrays[0])[slot]);
}

int columnar_obj_get_many(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                          const columnar_key *keys, uint64_t count, columnar_value *out_values,
                          uint64_t *out_failed_index) {
    gather_output output = { { out_values, NULL }, { sizeof *out_values, 0 }, 1 };
    return gather(txn, table, column, keys, count, false, value_sink, &output, out_failed_index);
}

static void int_sink(void *const arrays[2], uint64_t slot, uint8_t type, const void *cell, bool is_null) {
    (void)type;   /* int, bool and link cells all hold an int64_t */
    int64_t value = 0;
    if (!is_null) memcpy(&value, cell, sizeof value);
    ((int64_t *)arrays[0])[slot] = value;
    if (arrays[1]) ((bool *)arrays[1])[slot] = is_null;
}

int columnar_obj_get_many_int(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                              const columnar_key *keys, uint64_t count, int64_t *out_values, bool *out_is_null,
                              uint64_t *out_failed_index) {
    _Static_assert(sizeof(bool) == 1, "null flags scatter as bytes");
    gather_output output = { { out_values, out_is_null }, { sizeof *out_values, sizeof *out_is_null }, 2 };
    return gather(txn, table, column, keys, count, true, int_sink, &output, out_failed_index);
}
