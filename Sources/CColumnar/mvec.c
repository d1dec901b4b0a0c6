/*
 * mvec.c — private, growable column vectors (the form a write transaction edits a cluster's or a collection's
 * values in), range vectors (freed nodes, free-list entries) and the transaction arena for value bytes.
 */
#include "internal.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint8_t cc_cell_bytes(uint8_t type, uint8_t collection) {
    if (collection != COLUMNAR_COLLECTION_NONE) return sizeof(cc_collcell);
    switch (type) {
    case COLUMNAR_TYPE_FLOAT: return 4;
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: case COLUMNAR_TYPE_MIXED: return sizeof(cc_bytes);
    case COLUMNAR_TYPE_TIMESTAMP: return sizeof(cc_ts);
    case COLUMNAR_TYPE_OBJECTID: return 12;
    case COLUMNAR_TYPE_UUID: case COLUMNAR_TYPE_DECIMAL128: return 16;
    default: return 8;
    }
}

void cc_mvec_init(cc_mvec *vec, uint8_t type, uint8_t collection, bool nullable) {
    memset(vec, 0, sizeof *vec);
    vec->type = type;
    vec->collection = collection;
    /* Collection cells are never null: an empty collection is ref 0. */
    vec->nullable = nullable && collection == COLUMNAR_COLLECTION_NONE;
    vec->cell_bytes = cc_cell_bytes(type, collection);
}

void cc_mvec_free(cc_mvec *vec) {
    free(vec->cells);
    free(vec->nulls);
    vec->cells = NULL;
    vec->nulls = NULL;
    vec->count = vec->capacity = 0;
}

int cc_mvec_reserve(cc_mvec *vec, uint32_t capacity) {
    if (capacity <= vec->capacity) return 0;
    uint32_t grown = vec->capacity ? vec->capacity : 8;
    while (grown < capacity) grown = grown > UINT32_MAX / 2 ? UINT32_MAX : grown * 2;
    uint8_t *cells = realloc(vec->cells, (size_t)grown * vec->cell_bytes);
    if (!cells) return -ENOMEM;
    vec->cells = cells;
    if (vec->nullable) {
        uint8_t *nulls = realloc(vec->nulls, grown);
        if (!nulls) return -ENOMEM;
        vec->nulls = nulls;
    }
    vec->capacity = grown;
    return 0;
}

int cc_mvec_insert_default(cc_mvec *vec, uint32_t at, uint32_t count) {
    if ((uint64_t)vec->count + count > UINT32_MAX)
        return CC_FAIL(COLUMNAR_ETOOBIG, "more than %u elements in one vector", UINT32_MAX);
    int rc = cc_mvec_reserve(vec, vec->count + count);
    if (rc) return rc;
    size_t cell = vec->cell_bytes;
    if (count == 0) return 0;
    memmove(vec->cells + (at + count) * cell, vec->cells + at * cell, (vec->count - at) * cell);
    memset(vec->cells + at * cell, 0, count * cell);
    if (vec->nulls) {
        memmove(vec->nulls + at + count, vec->nulls + at, vec->count - at);
        memset(vec->nulls + at, 1, count);   /* a new nullable value starts null */
    }
    vec->count += count;
    return 0;
}

void cc_mvec_remove(cc_mvec *vec, uint32_t at) {
    size_t cell = vec->cell_bytes;
    memmove(vec->cells + at * cell, vec->cells + (at + 1) * cell, (vec->count - at - 1) * cell);
    if (vec->nulls) memmove(vec->nulls + at, vec->nulls + at + 1, vec->count - at - 1);
    vec->count--;
}

int cc_rangevec_push(cc_rangevec *vec, uint64_t pos, uint64_t size, uint64_t version) {
    if (vec->count == vec->capacity) {
        size_t capacity = vec->capacity ? vec->capacity * 2 : 256;
        cc_range *grown = realloc(vec->items, capacity * sizeof *grown);
        if (!grown) return -ENOMEM;
        vec->items = grown;
        vec->capacity = capacity;
    }
    vec->items[vec->count++] = (cc_range){ pos, size, version };
    return 0;
}

void cc_rangevec_free(cc_rangevec *vec) {
    free(vec->items);
    memset(vec, 0, sizeof *vec);
}

const uint8_t *cc_arena_copy(columnar_txn *txn, const void *data, size_t size) {
    static const uint8_t empty[1] = { 0 };
    if (size == 0) return empty;
    cc_arena_block *block = txn->arena;
    if (!block || block->capacity - block->used < size) {
        size_t capacity = size > (1u << 20) ? size : (1u << 20);
        cc_arena_block *fresh = malloc(sizeof *fresh + capacity);
        if (!fresh) return NULL;
        fresh->capacity = capacity;
        fresh->used = 0;
        fresh->next = txn->arena;
        txn->arena = fresh;
        block = fresh;
    }
    uint8_t *copy = block->data + block->used;
    memcpy(copy, data, size);
    block->used += size;
    return copy;
}
