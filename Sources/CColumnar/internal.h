/*
 * internal.h — the engine's internal structures: the open database, transactions, the decoded schema, and the
 * private (copy-on-write) forms a write transaction builds before its commit writes them as nodes.
 *
 * Reading never copies: a read transaction decodes nodes in place in the shared mapping (node.h, leaf.h).
 * Writing copies the nodes it touches into the mutable forms below (cc_mvec for a column's values, cc_tnode for
 * a tree node, cc_mcoll for a collection); the old nodes are put on the transaction's to-free list, and the
 * commit encodes the mutable forms into new nodes in free space (commit.c).
 */
#ifndef COLUMNAR_INTERNAL_H
#define COLUMNAR_INTERNAL_H

#include "columnar.h"
#include "error.h"
#include "format.h"
#include "io.h"
#include "lock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------------------------------------------------- */
/* The mapping                                                                                                  */
/* ---------------------------------------------------------------------------------------------------------- */

/* The data file mapped read-only into one reserved range of address space, so that pointers into it stay valid
 * while the file grows: growth maps the new part of the file after the old part, never moving the old. */
typedef struct cc_map {
    uint8_t *base;                 /* start of the reserved range */
    uint64_t reserved_bytes;
    _Atomic uint64_t mapped_bytes; /* bytes of the file mapped so far (a multiple of the page size) */
    pthread_mutex_t grow_mutex;
    /* Encrypted files: `base` is the mirror's decrypted image instead (mirror.h), and the functions below act on
     * it. NULL for plain files. */
    struct cc_mirror *mirror;
    /* Set once a sector of an encrypted file fails authentication below the used size: from then on every node
     * read verifies its checksum, so the damage is reported rather than read as data. */
    _Atomic bool verify_reads;
} cc_map;

int cc_map_init(cc_map *map);
void cc_map_destroy(cc_map *map);
/* Makes at least `size_bytes` of the file (of `fd`) readable through the mapping. Returns 0, -errno or
 * COLUMNAR_EMAPFULL. Never maps past the file's end (that would fault). */
int cc_map_ensure(cc_map *map, int fd, uint64_t size_bytes);
/* Makes the map hold version `version` (used size `used_size`) of chain epoch `epoch` for a reader: for a plain
 * file the same as cc_map_ensure; an encrypted file's image also takes in what other handles committed since
 * (mirror.h). A new epoch (a sync failed) always brings the image back in step with the file: the writer's image
 * holds the versions the failure dropped, whose numbers the next commits make again, and pages whose writeback
 * failed may come back from the disk old. (Versions other handles were given are never made again: losing them
 * fails the file with COLUMNAR_ESTORAGE.) */
int cc_map_refresh(cc_map *map, int fd, uint64_t version, uint64_t used_size, uint64_t epoch);
/* This handle wrote `version` in chain epoch `epoch` through the map's I/O layer (encrypted files: the mirror). */
void cc_map_note_written(cc_map *map, uint64_t version, uint64_t epoch);
/* The version this handle's commit is about to write (encrypted files: the mirror's change entries carry it). */
void cc_map_note_writing(cc_map *map, uint64_t version);
/* Reads go through the decrypted image of `mirror` from now on; the map owns it. */
void cc_map_attach_mirror(cc_map *map, struct cc_mirror *mirror);
/* The logical bytes a file of `physical` bytes holds (the same number for a plain file). */
uint64_t cc_map_logical_bytes(const cc_map *map, uint64_t physical);

/* ---------------------------------------------------------------------------------------------------------- */
/* Schema                                                                                                       */
/* ---------------------------------------------------------------------------------------------------------- */

typedef struct cc_column {
    char name[COLUMNAR_MAX_NAME_BYTES + 1];
    uint8_t type;        /* columnar_type */
    uint8_t collection;  /* columnar_collection_kind */
    uint8_t flags;       /* CF_COL_FLAG_* */
    uint32_t target_table;
    uint32_t origin_table;   /* backlink columns: which (table, column) links here */
    uint32_t origin_column;
} cc_column;

typedef struct cc_table_schema {
    char name[COLUMNAR_MAX_NAME_BYTES + 1];
    uint8_t flags;       /* CF_TABLE_FLAG_* */
    uint32_t primary_key;
    uint32_t column_count;
    cc_column *columns;
} cc_table_schema;

/* An immutable decoded schema, shared by read transactions of the same version (reference-counted). */
typedef struct cc_schema {
    _Atomic uint32_t refcount;
    uint64_t ref;        /* the SCHEMA node it was decoded from, 0 if built in memory */
    uint32_t table_count;
    cc_table_schema *tables;
} cc_schema;

int cc_schema_decode(const uint8_t *bytes, uint64_t size, uint64_t ref, cc_schema **out);
int cc_schema_encode(const cc_schema *schema, uint8_t **out_bytes, uint64_t *out_size);
cc_schema *cc_schema_empty(void);
int cc_schema_copy(const cc_schema *schema, cc_schema **out);
void cc_schema_retain(cc_schema *schema);
void cc_schema_release(cc_schema *schema);
/* Whether the column is a user-visible live column (not removed, not a hidden backlink column). */
bool cc_column_is_visible(const cc_column *column);
bool cc_column_is_live(const cc_column *column);
/* Schema of a hash-keyed search index tree: [0] INT first key, [1] LIST<INT> more keys. */
const cc_table_schema *cc_index_schema(void);
/* Schema of an ordered search index tree: the same two columns and [2] INT, how many keys [1] holds (so a range
 * is counted without opening its lists). */
const cc_table_schema *cc_ordered_index_schema(void);
/* The schema of the index tree of `column` (ordered or hash-keyed). */
const cc_table_schema *cc_index_schema_of(const cc_column *column);

/* ---------------------------------------------------------------------------------------------------------- */
/* Mutable column vectors                                                                                       */
/* ---------------------------------------------------------------------------------------------------------- */

/* Whether values of `type` are stored as bytes (the leaf forms, cells and scan views of strings): STRING, BINARY,
 * and MIXED, whose values are their encodings (mixed.h). */
static inline bool cc_type_is_bytes(uint8_t type) {
    return type == COLUMNAR_TYPE_STRING || type == COLUMNAR_TYPE_BINARY || type == COLUMNAR_TYPE_MIXED;
}

/* A string, binary or mixed value: bytes in the mapping or in the transaction's arena. */
typedef struct cc_bytes {
    const uint8_t *data;
    uint64_t size;
} cc_bytes;

typedef struct cc_ts {
    int64_t seconds;
    int32_t nanoseconds;
    int32_t padding;
} cc_ts;

struct cc_mcoll;
/* A collection-valued cell: the committed root, or the private copy made by this write transaction. */
typedef struct cc_collcell {
    uint64_t ref;
    struct cc_mcoll *dirty;
} cc_collcell;

/* The values of one column for a run of rows (or of one collection), in private memory. */
typedef struct cc_mvec {
    uint8_t type;         /* columnar_type of a value */
    uint8_t collection;   /* != NONE: cells are cc_collcell */
    bool nullable;
    bool removed;         /* a removed column: no cells, written as ref 0 */
    uint8_t cell_bytes;
    uint32_t count;
    uint32_t capacity;
    uint8_t *cells;
    uint8_t *nulls;       /* count bytes, 1 = null; NULL when not nullable */
} cc_mvec;

/* Cell size for a value type (single values), or for collection cells. */
uint8_t cc_cell_bytes(uint8_t type, uint8_t collection);
void cc_mvec_init(cc_mvec *vec, uint8_t type, uint8_t collection, bool nullable);
void cc_mvec_free(cc_mvec *vec);
int cc_mvec_reserve(cc_mvec *vec, uint32_t capacity);
/* Inserts `count` default cells (zero / null / empty) at `at`. */
int cc_mvec_insert_default(cc_mvec *vec, uint32_t at, uint32_t count);
void cc_mvec_remove(cc_mvec *vec, uint32_t at);
static inline void *cc_mvec_cell(const cc_mvec *vec, uint32_t index) {
    return vec->cells + (size_t)index * vec->cell_bytes;
}
static inline bool cc_mvec_is_null(const cc_mvec *vec, uint32_t index) {
    return vec->nulls && vec->nulls[index];
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Collections in private memory                                                                                */
/* ---------------------------------------------------------------------------------------------------------- */

typedef struct cc_mcoll {
    cc_mvec keys;     /* DICT only: STRING keys, sorted bytewise */
    cc_mvec values;
} cc_mcoll;

/* ---------------------------------------------------------------------------------------------------------- */
/* Trees (tables and search indexes) in private memory                                                          */
/* ---------------------------------------------------------------------------------------------------------- */

struct cc_tnode;
/* A child of a tree node: its committed ref, or the private copy made by this write transaction. */
typedef struct cc_child {
    uint64_t ref;
    struct cc_tnode *node;
} cc_child;

typedef struct cc_tnode {
    bool is_leaf;
    uint32_t count;       /* rows (leaf) or children (inner) */
    uint32_t capacity;
    uint64_t *keys;       /* leaf: object keys ascending; inner: first key of each child */
    cc_child *children;   /* inner only */
    uint32_t column_count;/* leaf only */
    cc_mvec *columns;     /* leaf only */
} cc_tnode;

/* ---------------------------------------------------------------------------------------------------------- */
/* Database and transactions                                                                                    */
/* ---------------------------------------------------------------------------------------------------------- */

struct cc_memdb;

struct columnar_db {
    char *path;
    int fd;
    uint32_t flags;
    columnar_durability durability;
    uint64_t max_active_versions;
    uint32_t cluster_size;
    cc_map map;
    cc_lock *lock;
    struct cc_memdb *memdb;        /* in-memory databases: the shared registry entry */
    cc_real_io real_io;
    const columnar_io *io;         /* encrypted files: the mirror's layer, which writes through `file_io` */
    const columnar_io *file_io;    /* the layer that writes the file itself (real or a test's fault layer) */
    const uint8_t *encryption_key; /* the caller's key while columnar_open runs (creating needs it), else NULL */
    uint8_t file_id[CF_FILE_ID_BYTES];   /* the identity's file id, which every slot repeats */
    /* The file's format version lets packed ints carry a base (4 and 5; format.h NODE): its writers use one
     * where it narrows a node. Files of versions 2 and 3 are written without, so older builds still read them. */
    bool node_bases;
    cc_version_state unlocked_state;     /* COLUMNAR_OPEN_NO_LOCK: the version recovery chose (no lock file) */
    columnar_commit_path commit_path;
    char commit_path_description[128];
    /* A size the file is known to have reached (files never shrink while open): a commit that fits needs no
     * fstat, which matters because a stat makes the kernel stamp the next write with a fine-grained ctime, and on
     * ext4 that costs the following fdatasync about half a sync more (docs/CommitPath.md, "Figures with
     * protocol v2"). */
    _Atomic uint64_t known_file_bytes;
    /* The decoded schema of the latest version seen, shared by read transactions. */
    pthread_mutex_t schema_cache_mutex;
    cc_schema *schema_cache;
};

/* A validated view of one node in the mapping. */
typedef struct cc_node {
    uint64_t ref;
    uint8_t encoding;
    uint8_t width;
    uint8_t role;
    uint8_t role_detail;
    uint32_t count;
    int64_t base;            /* PACKED_INT: added to every stored element (format.h NODE), else 0 */
    const uint8_t *payload;
    uint64_t payload_bytes;
} cc_node;

/* Per-table state in a transaction (loaded lazily). */
typedef struct cc_tstate {
    bool loaded;
    bool dirty;              /* write: table node must be rewritten */
    uint64_t table_ref;      /* TABLE node in the base version, 0 if none */
    uint64_t object_count;
    uint64_t next_key;
    cc_child root;
    uint32_t index_count;    /* entries in `indexes` (== column count when loaded) */
    cc_child *indexes;       /* per column: search index tree root */
    /* Primary-key lookups that tried the object whose key is the value (object.c): how often that object was the
     * one, and how often the index had to answer. Per transaction; they only decide whether to keep trying. */
    uint32_t key_probe_hits;
    uint32_t key_probe_misses;
    /* Every object's key equals its value of the table's int primary key (never null): a lookup by primary key is
     * then one table descent, with nothing to read back, and an absent key means an absent value (object.c). Kept
     * in the TABLE node's META (KEYED_BY); set when an object is created in an empty table or by a copy that
     * found every object so keyed (copy.c), cleared by anything that could break it. */
    bool keys_are_primary_keys;
} cc_tstate;

/* A location found by a lookup: the leaf (private) or cluster (committed) holding a row. */
typedef struct cc_rowpos {
    cc_tnode *leaf;          /* write transactions: the private leaf, else NULL */
    uint64_t cluster_ref;    /* read path: the CLUSTER node */
    uint32_t row;
} cc_rowpos;

/* A freed node range waiting for the commit to put it on the free list. */
typedef struct cc_range {
    uint64_t pos;
    uint64_t size;
    uint64_t version;   /* for free-list entries: the version whose commit freed it */
} cc_range;

typedef struct cc_rangevec {
    cc_range *items;
    size_t count;
    size_t capacity;
} cc_rangevec;
int cc_rangevec_push(cc_rangevec *vec, uint64_t pos, uint64_t size, uint64_t version);
void cc_rangevec_free(cc_rangevec *vec);

/* Bump allocator for strings and binary values written in a transaction. */
typedef struct cc_arena_block {
    struct cc_arena_block *next;
    size_t used;
    size_t capacity;
    uint8_t data[];
} cc_arena_block;

struct columnar_txn {
    columnar_db *db;
    bool is_write;
    bool poisoned;
    bool has_slot;
    bool logged_writes;      /* the write log holds this transaction's writes (writelog.c) */
    bool log_expected;       /* the write log was enabled when it began, so its writer knew to log */
    uint32_t reader_slot;
    uint64_t version;        /* base version */
    uint64_t top_ref;
    uint64_t used_size;      /* bound of valid refs in the base version */
    uint64_t file_size;      /* bytes the file is grown to */
    cc_schema *schema;       /* shared (read) or private copy (write, once changed) */
    bool schema_private;
    bool schema_dirty;
    uint32_t table_capacity;
    cc_tstate *tables;       /* indexed by table id, table_capacity entries */
    /* Lookup cache: the last row found (read path: cluster ref + key range; write path: private leaf). */
    uint32_t cache_table;
    int64_t cache_key;
    cc_rowpos cache_pos;
    bool cache_valid;
    /* Read transactions: the last committed cluster found, with its key range, so that lookups of nearby keys
     * (scans in key order) skip the descent from the root. Committed nodes never change under a read. */
    bool cluster_cache_valid;
    uint32_t cluster_cache_table;
    int64_t cluster_cache_first_key;
    int64_t cluster_cache_last_key;
    uint64_t cluster_cache_ref;
    cc_node cluster_cache_keys;
    uint32_t cluster_cache_row;  /* the row last found there: a scan's next key is usually the next row's */
    /* Read transactions: the committed cluster the last descent (of any table or index tree) ended in, with its
     * key array, both already validated: the reads that follow a lookup open that cluster's column leaves without
     * reading its nodes again. recent_cluster.ref == 0: none. */
    cc_node recent_cluster;
    cc_node recent_cluster_keys;
    /* Opened column leaves of committed clusters (direct-mapped by cluster ref and column), so repeated reads of
     * the same cluster validate its nodes once. Holds struct cc_leaf, defined in leaf.h. */
    struct cc_leaf_cache_entry *leaf_cache;
    /* write only */
    cc_rangevec to_free;     /* nodes of the base version this transaction replaces */
    cc_rangevec free_list;   /* the base version's free list (entries with their versions) */
    uint64_t oldest_pinned;  /* computed at begin_write: free-list entries with version <= this are reusable (the
                                older of the oldest version readers pin and the durable version) */
    uint64_t chain_epoch;    /* the lock file's chain epoch the base version belongs to */
    cc_arena_block *arena;
};

/* Errors a write made: after an I/O failure every call but rollback fails. */
int cc_txn_check_write(columnar_txn *txn);
int cc_txn_check(columnar_txn *txn);
/* Copies bytes into the transaction's arena (for values the caller passed in). */
const uint8_t *cc_arena_copy(columnar_txn *txn, const void *data, size_t size);

/* Ensures the table's state is loaded. Returns 0, ENOTFOUND (no such live table) or ECORRUPT. */
int cc_table_state(columnar_txn *txn, uint32_t table, cc_tstate **out);
/* A TABLE META's KEYED_BY element: 0 when the META predates it (format.h). */
int64_t cc_table_meta_keyed_by(const cc_node *meta);
/* Whether a KEYED_BY value marks the table's objects as keyed by its int primary key: only the primary key as it is
 * now, and only an int one, counts; any other value is a stale or damaged mark. */
bool cc_keyed_by_names_int_primary_key(const cc_table_schema *schema, int64_t keyed_by);
const cc_table_schema *cc_table_schema_get(columnar_txn *txn, uint32_t table);
/* Makes the transaction's schema private (copy-on-write) before a schema change. */
int cc_schema_make_private(columnar_txn *txn);
/* Grows txn->tables to cover the schema's tables. */
int cc_txn_tables_fit(columnar_txn *txn);

/* Schedules the node at `ref` to be freed by the commit (its space is reusable once no reader can see it). */
int cc_free_node(columnar_txn *txn, uint64_t ref);

/* The version a new reader gets: the published one, or without a lock file the one recovery chose at open. */
int cc_db_latest(columnar_db *db, cc_version_state *out);
/* The lock file's chain epoch, which tells an encrypted file's image apart versions of one number (cc_map_refresh);
 * 0 for a plain file or a handle without a lock file (nothing to tell apart: the number is read once). */
uint64_t cc_db_chain_epoch(columnar_db *db);
/* "<path>.lock" for a path already resolved (realpath); NULL when out of memory. Every name of one file shares the
 * lock file of its real path. */
char *cc_db_lock_path_beside(const char *resolved);
/* Removes the temporary file of a compaction of `data_path` that a crash interrupted (copy.c), with its lock file. */
int cc_copy_remove_leftovers(const char *data_path);
/* Loads (from cache or by decoding) the schema of the version whose top node is `top_ref`. */
int cc_db_schema_for(columnar_txn *txn, cc_schema **out);

#endif /* COLUMNAR_INTERNAL_H */
