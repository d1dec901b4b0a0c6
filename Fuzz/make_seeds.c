/*
 * make_seeds.c — writes the fuzzer's seed corpus: small databases built through the public API by the engine
 * being fuzzed, so the seeds always have the current file format (docs/Reliability.md, "Fuzzing").
 *
 *     make_seeds OUTPUT_DIRECTORY
 *
 * Each seed exercises a part of the format: every column type, nullable and not; lists, sets and dictionaries
 * (one long enough to need inner list nodes); links and their backlinks; hash-keyed and ordered search indexes
 * with values shared by several objects; primary keys; trees of several inner levels (a cluster size of 1 or 4);
 * removed tables and columns; free-list entries left by deletes over several commits. A seed file is the
 * database cut at the end of its last version's nodes (the preallocated tail only makes inputs larger).
 */
#include "columnar.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch_directory[256];
static const char *output_directory;

/* Every call must succeed: a seed that cannot be built is a bug in the generator or the engine. */
#define CHECK(call)                                                                                              \
    do {                                                                                                         \
        int check_rc_ = (call);                                                                                  \
        if (check_rc_ != 0) fail(__LINE__, #call, check_rc_);                                                    \
    } while (0)

static void fail(int line, const char *call, int rc) {
    fprintf(stderr, "make_seeds.c:%d: %s failed: %s (%s)\n", line, call, columnar_strerror(rc),
            columnar_last_error()->message);
    exit(1);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Small helpers over the API                                                                                   */
/* ---------------------------------------------------------------------------------------------------------- */

typedef struct seed {
    char name[64];
    char path[320];
    columnar_db *db;
    columnar_txn *txn;   /* the write in progress */
} seed;

static void seed_open(seed *s, const char *name, uint32_t cluster_size) {
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->path, sizeof s->path, "%s/%s.db", scratch_directory, name);
    columnar_open_options options;
    memset(&options, 0, sizeof options);
    options.flags = COLUMNAR_OPEN_CREATE | COLUMNAR_OPEN_NO_IO_URING;
    options.durability = COLUMNAR_DURABILITY_UNSAFE;
    options.cluster_size = cluster_size;
    CHECK(columnar_open(s->path, &options, &s->db));
}

static void begin(seed *s) { CHECK(columnar_txn_begin_write(s->db, &s->txn)); }
static void commit(seed *s) {
    CHECK(columnar_txn_commit(s->txn));
    s->txn = NULL;
}

/* Copies the used part of the database to the output directory, closes it and removes its files. */
static void seed_finish(seed *s) {
    columnar_db_stats stats;
    CHECK(columnar_db_stats_get(s->db, &stats));
    columnar_close(s->db);
    FILE *in = fopen(s->path, "rb");
    char out_path[512];
    snprintf(out_path, sizeof out_path, "%s/%s", output_directory, s->name);
    FILE *out = fopen(out_path, "wb");
    if (!in || !out) {
        fprintf(stderr, "make_seeds: cannot copy %s to %s: %s\n", s->path, out_path, strerror(errno));
        exit(1);
    }
    static uint8_t buffer[1 << 16];
    uint64_t left = stats.used_size_bytes;
    while (left) {
        size_t n = fread(buffer, 1, left < sizeof buffer ? (size_t)left : sizeof buffer, in);
        if (n == 0 || fwrite(buffer, 1, n, out) != n) {
            fprintf(stderr, "make_seeds: short copy of %s\n", s->path);
            exit(1);
        }
        left -= n;
    }
    fclose(in);
    fclose(out);
    char lock[340];
    snprintf(lock, sizeof lock, "%s.lock", s->path);
    unlink(s->path);
    unlink(lock);
    printf("%-24s %8llu bytes, version %llu\n", s->name, (unsigned long long)stats.used_size_bytes,
           (unsigned long long)stats.version);
}

static columnar_table_id add_table(seed *s, const char *name) {
    columnar_table_id table;
    CHECK(columnar_table_add(s->txn, name, &table));
    return table;
}

static columnar_col_id add_column(seed *s, columnar_table_id table, const char *name, columnar_type type,
                                  columnar_collection_kind collection, bool nullable, bool indexed,
                                  columnar_table_id target) {
    columnar_column_spec spec = { name, type, collection, nullable, indexed, target };
    columnar_col_id column;
    CHECK(columnar_column_add(s->txn, table, &spec, &column));
    return column;
}

static columnar_key create(seed *s, columnar_table_id table) {
    columnar_key key;
    CHECK(columnar_obj_create(s->txn, table, &key));
    return key;
}

static const char *const words[] = {
    "", "a", "ab", "abc", "alpha", "bravo", "charlie", "delta", "echo foxtrot",
    "a string that is longer than thirty-one bytes, so its leaf is long",
    "another long string: the short form holds at most thirty-one bytes",
};
#define WORD_COUNT (sizeof words / sizeof *words)

/* A value of `type` made from `n`. */
static columnar_value value_of(columnar_type type, int64_t n) {
    columnar_value value;
    memset(&value, 0, sizeof value);
    value.type = type;
    switch (type) {
    case COLUMNAR_TYPE_INT: value.as.i = n * 1000003 - 77; break;
    case COLUMNAR_TYPE_BOOL: value.as.b = (n % 3) == 0; break;
    case COLUMNAR_TYPE_FLOAT: value.as.f = (float)n * 1.5f - 2.0f; break;
    case COLUMNAR_TYPE_DOUBLE: value.as.d = (double)n / 7.0; break;
    case COLUMNAR_TYPE_STRING: case COLUMNAR_TYPE_BINARY: {
        const char *word = words[(uint64_t)n % WORD_COUNT];
        value.as.bytes.data = word;
        value.as.bytes.size = strlen(word);
        break;
    }
    case COLUMNAR_TYPE_TIMESTAMP:
        value.as.timestamp.seconds = n * 3600 - 7200;
        value.as.timestamp.nanoseconds = (int32_t)((n * 12345) % 1000000000);
        break;
    case COLUMNAR_TYPE_OBJECTID:
        for (int i = 0; i < 12; i++) value.as.objectid[i] = (uint8_t)(n * 31 + i);
        break;
    case COLUMNAR_TYPE_UUID:
        for (int i = 0; i < 16; i++) value.as.uuid[i] = (uint8_t)(n * 17 + i);
        break;
    case COLUMNAR_TYPE_DECIMAL128:
        for (int i = 0; i < 16; i++) value.as.decimal128[i] = (uint8_t)(n + i);
        break;
    case COLUMNAR_TYPE_LINK: value.as.link = n; break;
    default: break;
    }
    return value;
}

static columnar_value null_value(columnar_type type) {
    columnar_value value;
    memset(&value, 0, sizeof value);
    value.type = type;
    value.is_null = true;
    return value;
}

static void set(seed *s, columnar_table_id table, columnar_key key, columnar_col_id column, columnar_value value) {
    CHECK(columnar_obj_set(s->txn, table, key, column, &value));
}

static const columnar_type all_types[] = {
    COLUMNAR_TYPE_INT, COLUMNAR_TYPE_BOOL, COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE, COLUMNAR_TYPE_STRING,
    COLUMNAR_TYPE_BINARY, COLUMNAR_TYPE_TIMESTAMP, COLUMNAR_TYPE_OBJECTID, COLUMNAR_TYPE_UUID,
    COLUMNAR_TYPE_DECIMAL128,
};
#define TYPE_COUNT (sizeof all_types / sizeof *all_types)

static bool indexable(columnar_type type) {
    return type == COLUMNAR_TYPE_INT || type == COLUMNAR_TYPE_BOOL || type == COLUMNAR_TYPE_STRING ||
           type == COLUMNAR_TYPE_TIMESTAMP || type == COLUMNAR_TYPE_OBJECTID || type == COLUMNAR_TYPE_UUID;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The seeds                                                                                                    */
/* ---------------------------------------------------------------------------------------------------------- */

/* A database with no tables: version 1 and one more commit. */
static void seed_empty(void) {
    seed s;
    seed_open(&s, "empty", 0);
    begin(&s);
    commit(&s);
    seed_finish(&s);
}

/* Every value type twice, nullable and not, over a few clusters; some values null, some strings long. */
static void seed_all_types(const char *name, uint32_t cluster_size, int objects) {
    seed s;
    seed_open(&s, name, cluster_size);
    begin(&s);
    columnar_table_id table = add_table(&s, "values");
    columnar_col_id plain[TYPE_COUNT], nullable[TYPE_COUNT];
    for (size_t t = 0; t < TYPE_COUNT; t++) {
        char column[32];
        snprintf(column, sizeof column, "plain%zu", t);
        plain[t] = add_column(&s, table, column, all_types[t], COLUMNAR_COLLECTION_NONE, false, false, 0);
        snprintf(column, sizeof column, "nullable%zu", t);
        nullable[t] = add_column(&s, table, column, all_types[t], COLUMNAR_COLLECTION_NONE, true, false, 0);
    }
    for (int i = 0; i < objects; i++) {
        columnar_key key = create(&s, table);
        for (size_t t = 0; t < TYPE_COUNT; t++) {
            set(&s, table, key, plain[t], value_of(all_types[t], i + (int64_t)t));
            if (i % 3) set(&s, table, key, nullable[t], value_of(all_types[t], i * 2));
        }
    }
    commit(&s);
    seed_finish(&s);
}

/* Lists, sets and dictionaries of several element types, one list long enough for inner list nodes. */
static void seed_collections(void) {
    seed s;
    seed_open(&s, "collections", 4);
    begin(&s);
    columnar_table_id table = add_table(&s, "bags");
    static const columnar_type element_types[] = { COLUMNAR_TYPE_INT, COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_DOUBLE,
                                                   COLUMNAR_TYPE_TIMESTAMP, COLUMNAR_TYPE_UUID, COLUMNAR_TYPE_BOOL };
    columnar_col_id lists[6], sets[6], dicts[6];
    for (int t = 0; t < 6; t++) {
        char column[32];
        snprintf(column, sizeof column, "list%d", t);
        lists[t] = add_column(&s, table, column, element_types[t], COLUMNAR_COLLECTION_LIST, t % 2 == 1, false, 0);
        snprintf(column, sizeof column, "set%d", t);
        sets[t] = add_column(&s, table, column, element_types[t], COLUMNAR_COLLECTION_SET, t % 2 == 0, false, 0);
        snprintf(column, sizeof column, "dict%d", t);
        dicts[t] = add_column(&s, table, column, element_types[t], COLUMNAR_COLLECTION_DICT, t % 2 == 1, false, 0);
    }
    for (int i = 0; i < 10; i++) {
        columnar_key key = create(&s, table);
        for (int t = 0; t < 6; t++) {
            for (int e = 0; e < i % 5; e++) {
                columnar_value value = (e == 2 && t % 2 == 1) ? null_value(element_types[t])
                                                               : value_of(element_types[t], e * 3 + i);
                CHECK(columnar_list_insert(s.txn, table, key, lists[t], (uint64_t)e, &value));
                bool inserted;
                columnar_value member = value_of(element_types[t], e + i);
                CHECK(columnar_set_insert(s.txn, table, key, sets[t], &member, &inserted));
                char dict_key[16];
                snprintf(dict_key, sizeof dict_key, "k%d", e * 7 % 5);
                CHECK(columnar_dict_set(s.txn, table, key, dicts[t], dict_key, strlen(dict_key), &value));
            }
        }
    }
    /* One list of 2,500 elements: three leaves under an inner list node. */
    columnar_key big = create(&s, table);
    for (int e = 0; e < 2500; e++) {
        columnar_value value = value_of(COLUMNAR_TYPE_INT, e % 300);
        CHECK(columnar_list_insert(s.txn, table, big, lists[0], (uint64_t)e, &value));
    }
    commit(&s);
    /* A second commit that changes some collections, so their old nodes go on the free list. */
    begin(&s);
    columnar_value value = value_of(COLUMNAR_TYPE_STRING, 9);
    CHECK(columnar_list_insert(s.txn, table, 3, lists[1], 0, &value));
    CHECK(columnar_list_remove(s.txn, table, big, lists[0], 1000));
    CHECK(columnar_coll_clear(s.txn, table, 4, dicts[1]));
    commit(&s);
    seed_finish(&s);
}

/* Two tables linked every way a link can be held, with backlinks, and a delete that unlinks. */
static void seed_links(void) {
    seed s;
    seed_open(&s, "links", 4);
    begin(&s);
    columnar_table_id people = add_table(&s, "people");
    columnar_table_id pets = add_table(&s, "pets");
    columnar_col_id name = add_column(&s, pets, "name", COLUMNAR_TYPE_STRING, COLUMNAR_COLLECTION_NONE, false, false, 0);
    columnar_col_id owner = add_column(&s, pets, "owner", COLUMNAR_TYPE_LINK, COLUMNAR_COLLECTION_NONE, true, false,
                                       people);
    columnar_col_id friends = add_column(&s, people, "friends", COLUMNAR_TYPE_LINK, COLUMNAR_COLLECTION_LIST, false,
                                         false, people);
    columnar_col_id favourites = add_column(&s, people, "favourites", COLUMNAR_TYPE_LINK, COLUMNAR_COLLECTION_SET,
                                            false, false, pets);
    columnar_col_id by_name = add_column(&s, people, "by name", COLUMNAR_TYPE_LINK, COLUMNAR_COLLECTION_DICT, true,
                                         false, pets);
    columnar_key person_keys[12], pet_keys[20];
    for (int i = 0; i < 12; i++) person_keys[i] = create(&s, people);
    for (int i = 0; i < 20; i++) {
        pet_keys[i] = create(&s, pets);
        set(&s, pets, pet_keys[i], name, value_of(COLUMNAR_TYPE_STRING, i));
        if (i % 4) set(&s, pets, pet_keys[i], owner, value_of(COLUMNAR_TYPE_LINK, person_keys[i % 12]));
    }
    for (int i = 0; i < 12; i++) {
        for (int f = 0; f < i % 4; f++) {
            columnar_value friend_link = value_of(COLUMNAR_TYPE_LINK, person_keys[(i + f + 1) % 12]);
            CHECK(columnar_list_insert(s.txn, people, person_keys[i], friends, (uint64_t)f, &friend_link));
            bool inserted;
            columnar_value pet_link = value_of(COLUMNAR_TYPE_LINK, pet_keys[(i * 3 + f) % 20]);
            CHECK(columnar_set_insert(s.txn, people, person_keys[i], favourites, &pet_link, &inserted));
            char dict_key[16];
            snprintf(dict_key, sizeof dict_key, "pet%d", f);
            columnar_value entry = f == 2 ? null_value(COLUMNAR_TYPE_LINK) : pet_link;
            CHECK(columnar_dict_set(s.txn, people, person_keys[i], by_name, dict_key, strlen(dict_key), &entry));
        }
    }
    /* A self-link. */
    columnar_value self = value_of(COLUMNAR_TYPE_LINK, person_keys[0]);
    CHECK(columnar_list_insert(s.txn, people, person_keys[0], friends, 0, &self));
    commit(&s);
    begin(&s);
    CHECK(columnar_obj_delete(s.txn, people, person_keys[5]));
    CHECK(columnar_obj_delete(s.txn, pets, pet_keys[6]));
    commit(&s);
    seed_finish(&s);
}

/* Search indexes of every indexable type (ordered and hash-keyed), values shared by several objects, nulls, and
 * primary keys of int and string. */
static void seed_indexes(void) {
    seed s;
    seed_open(&s, "indexes", 4);
    begin(&s);
    columnar_table_id table = add_table(&s, "indexed");
    columnar_col_id columns[TYPE_COUNT];
    size_t column_count = 0;
    for (size_t t = 0; t < TYPE_COUNT; t++) {
        if (!indexable(all_types[t])) continue;
        char name[32];
        snprintf(name, sizeof name, "index%zu", t);
        columns[column_count++] = add_column(&s, table, name, all_types[t], COLUMNAR_COLLECTION_NONE, t % 2 == 0,
                                             true, 0);
    }
    for (int i = 0; i < 40; i++) {
        columnar_key key = create(&s, table);
        for (size_t c = 0; c < column_count; c++) {
            columnar_column_info info;
            CHECK(columnar_column_info_get(s.txn, table, columns[c], &info));
            /* Few distinct values, so most index entries list several objects; some nulls. */
            if (info.nullable && i % 7 == 0) set(&s, table, key, columns[c], null_value(info.type));
            else set(&s, table, key, columns[c], value_of(info.type, i % 6));
        }
    }
    columnar_table_id users = add_table(&s, "users");
    columnar_col_id id = add_column(&s, users, "id", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_NONE, false, true, 0);
    add_column(&s, users, "score", COLUMNAR_TYPE_DOUBLE, COLUMNAR_COLLECTION_NONE, false, false, 0);
    CHECK(columnar_table_set_primary_key(s.txn, users, id));
    columnar_key fourth_user = 0; /* its primary key is changed below (the engine chooses the keys) */
    for (int i = 0; i < 30; i++) {
        columnar_value pk = value_of(COLUMNAR_TYPE_INT, i);
        columnar_key key;
        CHECK(columnar_obj_create_with_primary_key(s.txn, users, &pk, &key));
        if (i == 3) fourth_user = key;
    }
    columnar_table_id tags = add_table(&s, "tags");
    columnar_col_id label = add_column(&s, tags, "label", COLUMNAR_TYPE_STRING, COLUMNAR_COLLECTION_NONE, false, true,
                                       0);
    CHECK(columnar_table_set_primary_key(s.txn, tags, label));
    for (int i = 0; i < (int)WORD_COUNT; i++) {
        columnar_value pk = value_of(COLUMNAR_TYPE_STRING, i);
        columnar_key key;
        CHECK(columnar_obj_create_with_primary_key(s.txn, tags, &pk, &key));
    }
    /* Ascending int ids with gaps: every object keyed by its id, so the table is marked as such (its META's third
     * element) and lookups take the table alone; the users' changed id above ends that table's mark. */
    columnar_table_id orders = add_table(&s, "orders");
    columnar_col_id number = add_column(&s, orders, "number", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_NONE, false,
                                        true, 0);
    CHECK(columnar_table_set_primary_key(s.txn, orders, number));
    columnar_key third_order = 0;
    for (int i = 0; i < 20; i++) {
        columnar_value pk = { .type = COLUMNAR_TYPE_INT, .is_null = false, .as.i = 100 + 3 * i };
        columnar_key key;
        CHECK(columnar_obj_create_with_primary_key(s.txn, orders, &pk, &key));
        if (i == 2) third_order = key;
    }
    commit(&s);
    begin(&s);
    for (int i = 0; i < 40; i += 5) CHECK(columnar_obj_delete(s.txn, table, i));
    set(&s, users, fourth_user, id, value_of(COLUMNAR_TYPE_INT, 1000));
    CHECK(columnar_obj_delete(s.txn, orders, third_order));
    columnar_table_info orders_info;
    CHECK(columnar_table_info_get(s.txn, orders, &orders_info));
    if (!orders_info.keys_are_primary_keys) {
        fprintf(stderr, "make_seeds: the orders table should have every object keyed by its id\n");
        exit(1);
    }
    commit(&s);
    seed_finish(&s);
}

/* Trees of several levels: one object per cluster, so 300 objects make two levels of inner nodes. */
static void seed_deep_tree(void) {
    seed s;
    seed_open(&s, "deep-tree", 1);
    begin(&s);
    columnar_table_id table = add_table(&s, "deep");
    columnar_col_id number = add_column(&s, table, "n", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_NONE, false, true, 0);
    for (int i = 0; i < 300; i++) set(&s, table, create(&s, table), number, value_of(COLUMNAR_TYPE_INT, i % 50));
    commit(&s);
    begin(&s);
    for (int i = 0; i < 300; i += 37) CHECK(columnar_obj_delete(s.txn, table, i));
    commit(&s);
    seed_finish(&s);
}

/* Schema history: removed tables and columns, a renamed table, objects changed over several commits so the free
 * list holds entries of several versions. */
static void seed_history(void) {
    seed s;
    seed_open(&s, "history", 4);
    begin(&s);
    columnar_table_id kept = add_table(&s, "kept");
    columnar_table_id dropped = add_table(&s, "dropped");
    columnar_col_id a = add_column(&s, kept, "a", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_NONE, false, false, 0);
    columnar_col_id b = add_column(&s, kept, "b", COLUMNAR_TYPE_STRING, COLUMNAR_COLLECTION_NONE, true, true, 0);
    columnar_col_id c = add_column(&s, kept, "c", COLUMNAR_TYPE_DOUBLE, COLUMNAR_COLLECTION_LIST, false, false, 0);
    columnar_col_id link = add_column(&s, kept, "link", COLUMNAR_TYPE_LINK, COLUMNAR_COLLECTION_NONE, true, false,
                                      dropped);
    columnar_col_id x = add_column(&s, dropped, "x", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_NONE, false, false, 0);
    for (int i = 0; i < 24; i++) {
        columnar_key key = create(&s, kept);
        set(&s, kept, key, a, value_of(COLUMNAR_TYPE_INT, i));
        set(&s, kept, key, b, value_of(COLUMNAR_TYPE_STRING, i));
        columnar_value element = value_of(COLUMNAR_TYPE_DOUBLE, i);
        CHECK(columnar_list_insert(s.txn, kept, key, c, 0, &element));
        columnar_key other = create(&s, dropped);
        set(&s, dropped, other, x, value_of(COLUMNAR_TYPE_INT, i));
        set(&s, kept, key, link, value_of(COLUMNAR_TYPE_LINK, other));
    }
    commit(&s);
    for (int round = 0; round < 3; round++) {
        begin(&s);
        for (int i = round; i < 24; i += 3) set(&s, kept, i, a, value_of(COLUMNAR_TYPE_INT, i * 10 + round));
        CHECK(columnar_obj_delete(s.txn, kept, 21 + round));   /* after its last change */
        commit(&s);
    }
    begin(&s);
    CHECK(columnar_column_remove(s.txn, kept, link));
    CHECK(columnar_table_remove(s.txn, dropped));
    CHECK(columnar_column_remove(s.txn, kept, c));
    CHECK(columnar_table_rename(s.txn, kept, "renamed"));
    columnar_col_id d = add_column(&s, kept, "d", COLUMNAR_TYPE_TIMESTAMP, COLUMNAR_COLLECTION_NONE, true, true, 0);
    set(&s, kept, 2, d, value_of(COLUMNAR_TYPE_TIMESTAMP, 5));
    commit(&s);
    seed_finish(&s);
}

/* One small table of each kind of column with a handful of objects: a seed the fuzzer mutates cheaply. */
static void seed_small(void) {
    seed s;
    seed_open(&s, "small", 2);
    begin(&s);
    columnar_table_id a = add_table(&s, "a");
    columnar_table_id b = add_table(&s, "b");
    columnar_col_id number = add_column(&s, a, "n", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_NONE, true, true, 0);
    columnar_col_id text = add_column(&s, a, "s", COLUMNAR_TYPE_STRING, COLUMNAR_COLLECTION_NONE, false, true, 0);
    columnar_col_id when = add_column(&s, a, "t", COLUMNAR_TYPE_TIMESTAMP, COLUMNAR_COLLECTION_NONE, false, true, 0);
    columnar_col_id list = add_column(&s, a, "l", COLUMNAR_TYPE_INT, COLUMNAR_COLLECTION_LIST, false, false, 0);
    columnar_col_id dict = add_column(&s, a, "d", COLUMNAR_TYPE_STRING, COLUMNAR_COLLECTION_DICT, true, false, 0);
    columnar_col_id link = add_column(&s, b, "to a", COLUMNAR_TYPE_LINK, COLUMNAR_COLLECTION_NONE, true, false, a);
    columnar_col_id links = add_column(&s, b, "all a", COLUMNAR_TYPE_LINK, COLUMNAR_COLLECTION_SET, false, false, a);
    for (int i = 0; i < 5; i++) {
        columnar_key key = create(&s, a);
        set(&s, a, key, number, i == 2 ? null_value(COLUMNAR_TYPE_INT) : value_of(COLUMNAR_TYPE_INT, i % 3));
        set(&s, a, key, text, value_of(COLUMNAR_TYPE_STRING, i + 8));
        set(&s, a, key, when, value_of(COLUMNAR_TYPE_TIMESTAMP, i));
        for (int e = 0; e < i; e++) {
            columnar_value element = value_of(COLUMNAR_TYPE_INT, e);
            CHECK(columnar_list_insert(s.txn, a, key, list, (uint64_t)e, &element));
        }
        columnar_value entry = value_of(COLUMNAR_TYPE_STRING, i);
        CHECK(columnar_dict_set(s.txn, a, key, dict, "k", 1, &entry));
        columnar_key other = create(&s, b);
        set(&s, b, other, link, value_of(COLUMNAR_TYPE_LINK, key));
        bool inserted;
        columnar_value target = value_of(COLUMNAR_TYPE_LINK, i / 2);
        CHECK(columnar_set_insert(s.txn, b, other, links, &target, &inserted));
    }
    commit(&s);
    begin(&s);
    CHECK(columnar_obj_delete(s.txn, a, 1));
    commit(&s);
    seed_finish(&s);
}

/* Mixed values: a MIXED column, list and dictionary holding scalars of several types and nested lists and
 * dictionaries (columnar.h, "Nested collections"), so the fuzzer mutates the bytes the mixed decoder checks. */
static size_t put_u32(uint8_t *out, uint32_t v) {
    memcpy(out, &v, 4);   /* little-endian hosts only, as the engine */
    return 4;
}

static size_t put_scalar(uint8_t *out, columnar_type type, int64_t n) {
    columnar_value value = value_of(type, n);
    size_t size = 0;
    CHECK(columnar_mixed_encode(&value, out, 128, &size));
    return size;
}

/* [n, null, "word", {"a": n / 7.0, "b": [true]}] into `out` (at most 300 bytes). */
static size_t put_nested(uint8_t *out, int64_t n) {
    size_t at = 0;
    out[at++] = COLUMNAR_MIXED_LIST;
    at += put_u32(out + at, 4);
    size_t size_at = at;
    at += 4;
    at += put_scalar(out + at, COLUMNAR_TYPE_INT, n);
    put_u32(out + size_at, (uint32_t)(at - size_at - 4));
    at += put_u32(out + at, 0);
    size_at = at;
    at += 4;
    at += put_scalar(out + at, COLUMNAR_TYPE_STRING, n);
    put_u32(out + size_at, (uint32_t)(at - size_at - 4));
    size_t dict_size_at = at;
    at += 4;
    size_t dict_at = at;
    out[at++] = COLUMNAR_MIXED_DICTIONARY;
    at += put_u32(out + at, 2);
    at += put_u32(out + at, 1);
    out[at++] = 'a';
    size_at = at;
    at += 4;
    at += put_scalar(out + at, COLUMNAR_TYPE_DOUBLE, n);
    put_u32(out + size_at, (uint32_t)(at - size_at - 4));
    at += put_u32(out + at, 1);
    out[at++] = 'b';
    size_at = at;
    at += 4;
    out[at++] = COLUMNAR_MIXED_LIST;
    at += put_u32(out + at, 1);
    at += put_u32(out + at, 2);
    at += put_scalar(out + at, COLUMNAR_TYPE_BOOL, 0);
    put_u32(out + size_at, (uint32_t)(at - size_at - 4));
    put_u32(out + dict_size_at, (uint32_t)(at - dict_at));
    return at;
}

static void seed_mixed(void) {
    seed s;
    seed_open(&s, "mixed", 4);
    begin(&s);
    columnar_table_id table = add_table(&s, "things");
    columnar_col_id single = add_column(&s, table, "any", COLUMNAR_TYPE_MIXED, COLUMNAR_COLLECTION_NONE, true, false,
                                        0);
    columnar_col_id list = add_column(&s, table, "anys", COLUMNAR_TYPE_MIXED, COLUMNAR_COLLECTION_LIST, true, false, 0);
    columnar_col_id dict = add_column(&s, table, "anyMap", COLUMNAR_TYPE_MIXED, COLUMNAR_COLLECTION_DICT, true, false,
                                      0);
    static const columnar_type scalar_types[] = { COLUMNAR_TYPE_INT, COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_DOUBLE,
                                                  COLUMNAR_TYPE_TIMESTAMP, COLUMNAR_TYPE_UUID, COLUMNAR_TYPE_BOOL };
    uint8_t buffer[512];
    for (int i = 0; i < 12; i++) {
        columnar_key key = create(&s, table);
        columnar_value value = { .type = COLUMNAR_TYPE_MIXED };
        value.as.bytes.data = buffer;
        value.as.bytes.size = i % 3 == 0 ? put_nested(buffer, i) : put_scalar(buffer, scalar_types[i % 6], i);
        if (i % 5 != 4) set(&s, table, key, single, value);
        for (int e = 0; e < i % 4; e++) {
            value.as.bytes.size = e == 1 ? put_nested(buffer, i + e) : put_scalar(buffer, scalar_types[e], i * 3 + e);
            CHECK(columnar_list_insert(s.txn, table, key, list, (uint64_t)e, &value));
            char dict_key[16];
            snprintf(dict_key, sizeof dict_key, "k%d", e);
            CHECK(columnar_dict_set(s.txn, table, key, dict, dict_key, strlen(dict_key), &value));
        }
    }
    commit(&s);
    seed_finish(&s);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds OUTPUT_DIRECTORY\n");
        return 2;
    }
    output_directory = argv[1];
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    snprintf(scratch_directory, sizeof scratch_directory, "%s/columnar-seeds-XXXXXX", base);
    if (!mkdtemp(scratch_directory)) {
        perror("mkdtemp");
        return 1;
    }
    seed_empty();
    seed_all_types("all-types", 4, 24);
    seed_all_types("all-types-one-cluster", 0, 6);
    seed_collections();
    seed_links();
    seed_indexes();
    seed_deep_tree();
    seed_history();
    seed_small();
    seed_mixed();
    rmdir(scratch_directory);
    return 0;
}
