/*
 * gather.c — reading one column of many objects at once (columnar_obj_get_many and its integer form).
 *
 * Objects handed over in an arbitrary order (a sorted Results lists them by value, not by key) would each cost a
 * descent of the table's tree at a random key, a cache miss per level. Two ways avoid that, chosen by how the
 * keys are spread:
 *
 * - Keys in a narrow span (its width at most SPAN_KEYS_PER_KEY times their count: a table's keys, or most of them,
 *   in whatever order a sort put them). The clusters over the span are read once in file order into tables
 *   indexed by key - lowest key (an integer column a cluster's run of consecutive keys at a time, with the block
 *   decoder), and each caller position then picks its key's entry: one pass of independent loads, and no sort of
 *   the keys.
 * - Other keys. They are sorted once, with their positions, by an LSD radix sort, and the table is walked cluster
 *   by cluster in key order: a key inside the current cluster is found by stepping forward from the previous row,
 *   and only a key past it seeks the next cluster. The values are written in key order and then scattered back
 *   to the caller's positions in one loop, so no load in the walk waits on a random access.
 */
#include "kernels.h"
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

/* What the walk needs to know of the keys, found in one pass that also refuses a negative key. */
typedef struct key_summary {
    int64_t low, high;   /* the smallest and largest key */
    bool ascending;
} key_summary;

static int summarize_keys(const columnar_key *keys, uint64_t count, key_summary *out) {
    /* Branch-free: the keys of a sorted result are in random order, so "smaller than the one before" would be a
     * mispredicted branch every other key. A negative key sets the sign bit of `any_bits`. */
    int64_t low = keys[0], high = keys[0];
    uint64_t descents = 0, any_bits = 0;
    for (uint64_t i = 0; i < count; i++) {
        int64_t key = keys[i];
        any_bits |= (uint64_t)key;
        descents += i && key < keys[i - 1];
        low = key < low ? key : low;
        high = key > high ? key : high;
    }
    if (any_bits >> 63) {
        uint64_t i = 0;
        while (keys[i] >= 0) i++;
        return CC_MISUSE("key %lld at position %llu is negative", (long long)keys[i], (unsigned long long)i);
    }
    *out = (key_summary){ low, high, descents == 0 };
    return 0;
}

/* The objects in key order. Keys already ascending need no work: the walk reads `keys` itself and *out_order
 * stays NULL. Otherwise *out_order (allocated) holds `count` entries in key order (ties by position), each the
 * key above its caller position: key = entry >> *out_position_bits, position = entry & (2^bits - 1). Both come
 * from one sequential array, so the walk reads nothing at random. Returns 1 when the keys are too large to pack
 * beside a position (the caller sorts pairs instead). */
static int key_order(const columnar_key *keys, uint64_t count, const key_summary *summary, uint64_t **out_order,
                     unsigned *out_position_bits) {
    *out_order = NULL;
    *out_position_bits = 0;
    if (summary->ascending) return 0;
    unsigned position_bits = bit_width(count - 1), key_bits = bit_width((uint64_t)summary->high);
    if (position_bits + key_bits > 64) return 1;
    uint64_t *order = malloc(count * sizeof *order), *scratch = malloc(count * sizeof *scratch);
    if (!order || !scratch) {
        free(order);
        free(scratch);
        return -ENOMEM;
    }
    for (uint64_t i = 0; i < count; i++) order[i] = ((uint64_t)keys[i] << position_bits) | i;
    /* By the key bits only: the entries start in position order and the sort is stable, so ties stay in it. */
    radix_sort(order, scratch, count, position_bits, position_bits + key_bits);
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

/* One call's request, checked: which column of which objects goes where. */
typedef struct gather_job {
    columnar_txn *txn;
    const cc_table_schema *schema;
    const cc_column *col;
    uint32_t column;
    const cc_child *root;
    const columnar_key *keys;
    uint64_t count;
    bool integers_only;
    gather_sink sink;
    const gather_output *output;
    uint64_t *out_failed_index;
} gather_job;

static int not_found(const gather_job *job, int64_t key, uint64_t position) {
    if (job->out_failed_index) *job->out_failed_index = position;
    return cc_error(COLUMNAR_ENOTFOUND, 0, "", "table %s has no object with key %lld (position %llu)",
                    job->schema->name, (long long)key, (unsigned long long)position);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Keys spread wide: sorted, then the table walked in key order                                                 */
/* ---------------------------------------------------------------------------------------------------------- */

static int gather_in_key_order(const gather_job *job, const key_summary *summary) {
    const columnar_key *keys = job->keys;
    uint64_t count = job->count;
    const gather_output *output = job->output;
    uint64_t *order = NULL;
    int64_t (*pairs)[2] = NULL;
    unsigned position_bits = 0;
    int rc = key_order(keys, count, summary, &order, &position_bits);
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
            if ((rc = cc_tree_seek_cluster(job->txn, job->root, key, &cluster))) break;
            if (cluster.found) {
                cluster_first = cluster.leaf ? (int64_t)cluster.leaf->keys[0] : cc_node_int_at(&cluster.keys, 0);
                cluster_last = cluster_last_key(&cluster);
                next_row = 0;
            }
        }
        bool found = false;
        uint32_t row = 0;
        if (cluster.found) row = row_in_cluster(&cluster, key, next_row, &found);
        if (!found) {
            rc = not_found(job, key, order ? order[n] & mask : pairs ? (uint64_t)pairs[n][1] : n);
            break;
        }
        next_row = row;
        cc_rowpos pos = { cluster.leaf, cluster.cluster_ref, row };
        uint8_t cell[16];
        bool is_null;
        if ((rc = cc_row_get(job->txn, job->schema, &pos, job->column, cell, &is_null))) break;
        job->sink(targets, n, job->col->type, cell, is_null);
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

/* ---------------------------------------------------------------------------------------------------------- */
/* Keys in a narrow span: tables indexed by key                                                                 */
/* ---------------------------------------------------------------------------------------------------------- */

/* The widest span, per key asked for, read into tables rather than sorting the keys. A sorted table's keys have
 * a span equal to their count (wider only by the keys of deleted objects); reading four times as many rows as
 * asked for in file order, with no per-key search, still costs less than a sort of the keys and a scatter. The
 * tables then take at most four times the memory of the caller's arrays (plus a byte a key), for the call only. */
#define SPAN_KEYS_PER_KEY 4u

/* What the span's objects hold, in tables indexed by key - low: the values (as the sink writes them; the integer
 * form's nulls go in `state` only) and the state of each key. */
enum { SPAN_ABSENT = 0, SPAN_VALUE = 1, SPAN_NULL = 2 };
typedef struct span_tables {
    int64_t low, high;
    void *values;
    uint8_t *state;   /* SPAN_ABSENT for keys with no object */
} span_tables;

/* The column leaf of a committed cluster, opened once for all its rows (values.ref 0: every row holds the
 * default). */
static int open_cluster_column(const gather_job *job, const cc_cluster_pos *cluster, cc_leaf *out) {
    int rc = cc_cluster_leaf_open(job->txn, cluster->cluster_ref, job->column, job->col->type, job->col->collection,
                                  out);
    if (rc == 0 && out->values.ref && out->count < cluster->keys.count)
        return CC_CORRUPT(out->values.ref, "column leaf values at %llu are %u, fewer than their cluster's %llu rows",
                          (unsigned long long)out->values.ref, out->count, (unsigned long long)cluster->keys.count);
    return rc;
}

/* Rows [from, from + rows) of an integer column leaf, whose keys run from `first_key` without a gap, decoded in
 * blocks straight into the span's tables (the integer form: values, 0 for a null). */
static void decode_run(const cc_leaf *leaf, uint8_t type, uint64_t from, uint64_t rows, int64_t first_key,
                       span_tables *tables) {
    uint64_t at = (uint64_t)(first_key - tables->low);
    int64_t *values = (int64_t *)tables->values + at;
    uint8_t *state = tables->state + at;
    cc_unpack_ints(leaf->values.payload, leaf->values.width, from, rows, values);
    cc_add_base(values, rows, leaf->values.base);
    if (type == COLUMNAR_TYPE_BOOL)
        for (uint64_t i = 0; i < rows; i++) values[i] = values[i] != 0;
    if (leaf->nulls.ref) {
        cc_unpack_flags(leaf->nulls.payload, leaf->nulls.width, from, rows, state);   /* 1 for a null */
        for (uint64_t i = 0; i < rows; i++) {
            values[i] = state[i] ? 0 : values[i];
            state[i] = (uint8_t)(SPAN_VALUE + state[i]);
        }
    } else {
        memset(state, SPAN_VALUE, rows);
    }
}

/* The same for a cluster that stores no leaf for the column: every row holds the default, 0 or (in a nullable
 * column) null. */
static void default_run(bool nullable, uint64_t rows, int64_t first_key, span_tables *tables) {
    uint64_t at = (uint64_t)(first_key - tables->low);
    memset((int64_t *)tables->values + at, 0, rows * sizeof(int64_t));
    memset(tables->state + at, nullable ? SPAN_NULL : SPAN_VALUE, rows);
}

/* Reads the rows of one cluster whose keys lie in the span. Every key is checked against the span before it
 * indexes a table, so a cluster whose keys are out of order (a damaged file) cannot write outside them. */
static int read_cluster_into_span(const gather_job *job, const cc_cluster_pos *cluster, span_tables *tables) {
    uint64_t rows = cluster->leaf ? cluster->leaf->count : cluster->keys.count;
    bool nullable = (job->col->flags & CF_COL_FLAG_NULLABLE) != 0;
    cc_leaf committed = { .values.ref = 0 };   /* stays "no leaf" for a private cluster */
    uint64_t from = 0;
    if (!cluster->leaf) {
        int rc = open_cluster_column(job, cluster, &committed);
        if (rc) return rc;
        const cc_node *keys = &cluster->keys;
        if (cc_node_int_at(keys, 0) < tables->low) from = cc_packed_lower_bound(keys, tables->low);
        /* An integer column whose rows in the span have keys without a gap (no object of the cluster deleted) is
         * decoded as one block. */
        uint64_t to = cc_node_int_at(keys, rows - 1) <= tables->high ? rows
                      : cc_packed_lower_bound(keys, tables->high + 1);   /* high < the last key <= INT64_MAX */
        if (job->integers_only && to > from) {
            int64_t first_key = cc_node_int_at(keys, from), last_key = cc_node_int_at(keys, to - 1);
            if (first_key >= tables->low && last_key <= tables->high && last_key >= first_key &&
                (uint64_t)(last_key - first_key) == to - from - 1) {
                if (committed.values.ref) decode_run(&committed, job->col->type, from, to - from, first_key, tables);
                else default_run(nullable, to - from, first_key, tables);
                return 0;
            }
        }
    }
    for (uint64_t row = from; row < rows; row++) {
        int64_t key = cluster->leaf ? (int64_t)cluster->leaf->keys[row] : cc_node_int_at(&cluster->keys, row);
        if (key > tables->high) break;
        if (key < tables->low) continue;
        uint8_t cell[16];
        bool is_null;
        int rc = 0;
        if (cluster->leaf) {
            cc_rowpos pos = { cluster->leaf, 0, (uint32_t)row };
            rc = cc_row_get(job->txn, job->schema, &pos, job->column, cell, &is_null);
        } else if (committed.values.ref) {
            rc = cc_leaf_get(&committed, (uint32_t)row, cell, &is_null);
        } else {
            memset(cell, 0, sizeof cell);
            is_null = nullable;
        }
        if (rc) return rc;
        uint64_t slot = (uint64_t)(key - tables->low);
        void *arrays[2] = { tables->values, NULL };
        job->sink(arrays, slot, job->col->type, cell, is_null);
        tables->state[slot] = is_null ? SPAN_NULL : SPAN_VALUE;
    }
    return 0;
}

/* Copies, for each caller position i, the table entries of keys[i] to the caller's arrays, in one pass of
 * independent loads. Returns whether every key has an object (checked without a branch per key). */
static bool pick(const gather_job *job, const span_tables *tables) {
    const columnar_key *keys = job->keys;
    uint64_t count = job->count;
    int64_t low = tables->low;
    const uint8_t *state = tables->state;
    uint8_t absent = 0;
    if (job->integers_only) {
        const int64_t *values = tables->values;
        int64_t *out = job->output->arrays[0];
        bool *out_is_null = job->output->arrays[1];
        if (out_is_null) {
            for (uint64_t i = 0; i < count; i++) {
                uint64_t slot = (uint64_t)(keys[i] - low);
                uint8_t s = state[slot];
                out[i] = values[slot];
                out_is_null[i] = s == SPAN_NULL;
                absent |= s == SPAN_ABSENT;
            }
        } else {
            for (uint64_t i = 0; i < count; i++) {
                uint64_t slot = (uint64_t)(keys[i] - low);
                out[i] = values[slot];
                absent |= state[slot] == SPAN_ABSENT;
            }
        }
    } else {
        const columnar_value *values = tables->values;
        columnar_value *out = job->output->arrays[0];
        for (uint64_t i = 0; i < count; i++) {
            uint64_t slot = (uint64_t)(keys[i] - low);
            out[i] = values[slot];
            absent |= state[slot] == SPAN_ABSENT;
        }
    }
    return !absent;
}

/* Returns -ENOMEM, having written nothing, when the tables cannot be allocated (the caller walks instead). */
static int gather_span(const gather_job *job, const key_summary *summary) {
    uint64_t span = (uint64_t)summary->high - (uint64_t)summary->low + 1;
    span_tables tables = { summary->low, summary->high, malloc(span * job->output->element_size[0]), calloc(span, 1) };
    int rc = tables.values && tables.state ? 0 : -ENOMEM;
    /* The clusters over the span, each read once: a seek from the key after the last cluster's last key. */
    int64_t next = summary->low;
    while (rc == 0) {
        cc_cluster_pos cluster;
        if ((rc = cc_tree_seek_cluster(job->txn, job->root, next, &cluster)) || !cluster.found) break;
        if ((rc = read_cluster_into_span(job, &cluster, &tables))) break;
        int64_t last = cluster_last_key(&cluster);   /* >= next: a seek finds a cluster holding a key >= next */
        if (last >= summary->high) break;
        next = last + 1;
    }
    if (rc == 0 && !pick(job, &tables)) {
        uint64_t i = 0;
        while (tables.state[job->keys[i] - summary->low] != SPAN_ABSENT) i++;
        rc = not_found(job, job->keys[i], i);
    }
    free(tables.values);
    free(tables.state);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The calls                                                                                                    */
/* ---------------------------------------------------------------------------------------------------------- */

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
    key_summary summary;
    if ((rc = summarize_keys(keys, count, &summary))) return rc;
    gather_job job = { txn, schema, col, column, &ts->root, keys, count, integers_only, sink, output,
                       out_failed_index };
    if (((uint64_t)summary.high - (uint64_t)summary.low) / SPAN_KEYS_PER_KEY < count) {
        rc = gather_span(&job, &summary);
        if (rc != -ENOMEM) return rc;
    }
    return gather_in_key_order(&job, &summary);
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
