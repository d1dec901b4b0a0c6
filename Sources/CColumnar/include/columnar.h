/*
 * columnar.h — the one public header of Columnar's storage engine.
 *
 * OVERVIEW
 *
 * A Columnar database is one file (plus a lock file beside it, "<path>.lock") holding tables of objects.
 * Each object has a stable 64-bit key and one value per column; the values of one column are stored together
 * in bit-packed arrays, a cluster of objects at a time, so a scan of one column touches only that column.
 *
 * The file is mapped read-only and shared. Readers follow refs (8-byte-aligned file offsets) straight into the
 * mapping. A write transaction never writes through the mapping: it copies every node it changes into private
 * memory, and its commit writes the new nodes to free space, together with a commit record listing what it
 * wrote (with a CRC of each range) and a header slot naming the new version, in one batch followed by one
 * fdatasync; recovery takes the newest version whose record verifies (docs/CommitPath.md). Concurrent committers,
 * in any thread or process, share one fdatasync (group commit). Every commit makes a new version; a read
 * transaction pins the version it started on and sees it unchanged until it ends (MVCC). Space a commit frees is
 * reused only once no reader can still see it and a later version is durable.
 *
 * Every function returns 0 (COLUMNAR_OK) on success or a negative error code: one of the COLUMNAR_E* codes
 * below, or -errno where an operating-system call was the cause. columnar_strerror() names any code and
 * columnar_last_error() gives the details (what, where, which source line found it) of the calling thread's
 * most recent failure.
 *
 * CAVEATS
 *
 * 1. Threads. A columnar_db handle may be shared by threads. A transaction may not be used by two threads at once,
 *    but it may move between threads: a write transaction may be committed or rolled back on another thread than
 *    the one that began it. One write transaction at a time per file, across threads and processes; begin_write
 *    blocks until the writer lock is free. Readers never block and are never blocked.
 * 2. fork(). Do not use a columnar_db or transaction in a child process created by fork(); open the file again.
 * 3. Mapping size. The engine reserves COLUMNAR_MAX_MAP_BYTES of address space per open file (nothing is
 *    committed up front), and a file cannot grow past it. Pointers handed out (strings, binary values, column
 *    arrays) stay valid while the file grows, until the transaction that produced them ends.
 * 4. Durability. With COLUMNAR_DURABILITY_FULL a commit returns only once the new version is on stable storage
 *    (one fdatasync, shared with concurrent committers). COLUMNAR_DURABILITY_UNSAFE does not wait for it: such a
 *    commit survives the death of its process but a power cut may take it away (and the commits after it, up to
 *    the last sync); the file itself is never damaged, since a sync happens at least every 14 commits and
 *    recovery verifies what it opens. A failed fdatasync is never retried: the commits it covered fail, their
 *    versions are removed from the file before anyone is told, and the database goes on from the last durable
 *    version. If even that removal cannot be made durable, or versions that readers had already seen (UNSAFE) are
 *    lost, the file refuses writes (COLUMNAR_ESTORAGE) until every handle has closed it.
 * 5. Failed transactions are poisoned. After an I/O or fsync failure inside a write transaction, every call on it
 *    returns COLUMNAR_EPOISONED except columnar_txn_rollback().
 * 6. The lock file must live on a local file system that supports shared mappings and open file description locks
 *    (fcntl F_OFD_*). Network file systems are not supported.
 * 7. Names. The lock file is "<real path>.lock": symlinks to the file and a bind-mounted directory share it. A
 *    file opened at once through names whose lock files differ (a hard link, or a bind mount of the file itself)
 *    is refused with COLUMNAR_ELOCKFILE, since two lock files would let a writer overwrite what the other's
 *    readers read; every path to one file shares its writer lock in any case (it is a lock on the file itself).
 *    Liveness of readers and writers is proven by open-file-description locks, never by process ids, so
 *    processes in different pid namespaces (containers sharing a volume) may share a file.
 */
#ifndef COLUMNAR_H
#define COLUMNAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------------------- */
/* Errors                                                                                                       */
/* ---------------------------------------------------------------------------------------------------------- */

/** Success. */
#define COLUMNAR_OK 0
/** The file (or a node in it) is damaged: a structure read from disk failed validation. */
#define COLUMNAR_ECORRUPT (-30901)
/** The file is not a Columnar database (wrong magic number). */
#define COLUMNAR_ENOTDB (-30902)
/** The file was written by a format version this library cannot read. */
#define COLUMNAR_EFORMAT (-30903)
/** A caller error: wrong transaction kind, bad argument, an operation not valid in this state. */
#define COLUMNAR_EMISUSE (-30904)
/** No such table, column or object. */
#define COLUMNAR_ENOTFOUND (-30905)
/** A table or column of that name, an object with that key, or that primary key value exists already. */
#define COLUMNAR_EEXISTS (-30906)
/** A value of the wrong type for the column. */
#define COLUMNAR_ETYPE (-30907)
/** A null value for a column that is not nullable. */
#define COLUMNAR_ENULL (-30908)
/** An index outside a collection's bounds. */
#define COLUMNAR_ERANGE (-30909)
/** The transaction failed earlier (I/O or fsync error); only rollback is allowed. */
#define COLUMNAR_EPOISONED (-30910)
/** Beginning a write would exceed the configured maximum number of live versions. */
#define COLUMNAR_EVERSIONS (-30911)
/** The database was opened read-only. */
#define COLUMNAR_EREADONLY (-30912)
/** The lock file's reader table is full (too many concurrent read transactions). */
#define COLUMNAR_EREADERS (-30913)
/** A value, name or collection is larger than the format allows. */
#define COLUMNAR_ETOOBIG (-30914)
/** The database would grow past the reserved mapping (COLUMNAR_MAX_MAP_BYTES). */
#define COLUMNAR_EMAPFULL (-30915)
/** The lock file is damaged or of another version, or the file is open through another path whose lock file
 *  differs. */
#define COLUMNAR_ELOCKFILE (-30916)
/** The storage failed a write or sync and the file could not be brought back to a known durable state: it
 *  refuses writes until every handle has closed it (caveat 4). */
#define COLUMNAR_ESTORAGE (-30917)
/** The file's encryption and the key given do not match: an encrypted file opened without a key or with another
 *  key, or a plain file opened with a key. Nothing was changed. */
#define COLUMNAR_EKEY (-30918)

/** Returns a static, human-readable name for any code this library returns (including -errno codes). */
const char *columnar_strerror(int code);

/** Details of the calling thread's most recent failure. Valid until the next failing call on this thread. */
typedef struct columnar_error_info {
    int code;             /**< the code that was returned */
    const char *message;  /**< what went wrong, in a sentence, naming the table/column/object when known */
    uint64_t ref;         /**< file offset involved (corruption), or 0 */
    const char *source;   /**< "file.c:line" of the check that found it (corruption and misuse), or "" */
} columnar_error_info;

/** Returns the calling thread's last error details. Never NULL. */
const columnar_error_info *columnar_last_error(void);

/* ---------------------------------------------------------------------------------------------------------- */
/* Values                                                                                                       */
/* ---------------------------------------------------------------------------------------------------------- */

/** Value types of columns and collection elements. 0 is reserved (invalid); the numbers are stored on disk. */
typedef enum columnar_type {
    COLUMNAR_TYPE_INT = 1,        /**< int64, bit-packed on disk */
    COLUMNAR_TYPE_BOOL = 2,
    COLUMNAR_TYPE_FLOAT = 3,      /**< IEEE 754 binary32 */
    COLUMNAR_TYPE_DOUBLE = 4,     /**< IEEE 754 binary64 */
    COLUMNAR_TYPE_STRING = 5,     /**< UTF-8 bytes (not validated), up to COLUMNAR_MAX_VALUE_BYTES */
    COLUMNAR_TYPE_BINARY = 6,     /**< bytes, up to COLUMNAR_MAX_VALUE_BYTES */
    COLUMNAR_TYPE_TIMESTAMP = 7,  /**< seconds since 1970 (int64) + nanoseconds (int32, 0 ... 999,999,999) */
    COLUMNAR_TYPE_OBJECTID = 8,   /**< 12 bytes */
    COLUMNAR_TYPE_UUID = 9,       /**< 16 bytes */
    COLUMNAR_TYPE_DECIMAL128 = 10,/**< 16 bytes, IEEE 754-2008 decimal128 bit pattern (stored, not interpreted) */
    COLUMNAR_TYPE_LINK = 11,      /**< key of an object in the column's target table */
    COLUMNAR_TYPE_MIXED = 12,     /**< a value of any type above, or null: its encoding, see "Mixed values" */
} columnar_type;

#define COLUMNAR_MAX_VALUE_BYTES (16u * 1024u * 1024u)

/** A value of any type. For STRING and BINARY, `as.bytes.data` points into the mapping or into transaction
 *  memory and stays valid until the transaction ends or the value's object or collection is next modified. An
 *  empty value may have `data` NULL (size 0), e.g. a row of a column added after the row was written: read
 *  `size` bytes, never `data` alone. */
typedef struct columnar_value {
    columnar_type type;
    bool is_null;
    union {
        int64_t i;     /**< INT */
        bool b;        /**< BOOL */
        float f;       /**< FLOAT */
        double d;      /**< DOUBLE */
        struct { const void *data; size_t size; } bytes;   /**< STRING, BINARY */
        struct { int64_t seconds; int32_t nanoseconds; } timestamp;
        uint8_t objectid[12];
        uint8_t uuid[16];
        uint8_t decimal128[16];
        int64_t link;  /**< LINK: the target object's key */
        /** LINK inside a mixed value (columnar_mixed_encode/decode): the key (same place as `link`) and the
         *  table it is a key of. */
        struct { int64_t key; uint32_t table; } typed_link;
    } as;
} columnar_value;

/* Mixed values. A MIXED column (or collection element) holds null or a value of any other type. At this API a
 * non-null mixed value is passed and returned as its encoding, a columnar_value of type MIXED whose `as.bytes`
 * hold one tag byte (the value's columnar_type) followed by the payload: INT and DOUBLE 8 bytes, little-endian;
 * BOOL 1 byte (0 or 1); FLOAT 4 bytes; STRING and BINARY the bytes themselves; TIMESTAMP 8 bytes of seconds and
 * 4 of nanoseconds; OBJECTID 12 bytes; UUID and DECIMAL128 16 bytes; LINK 4 bytes of table id then 8 of key. The
 * engine stores the encoding as it stores BINARY values, checks it when it is set or looked for (columnar_obj_set,
 * the list, set and dictionary writes, columnar_coll_contains and columnar_obj_find_first refuse an encoding that
 * does not decode with COLUMNAR_ETYPE, changing nothing) and when it is read from the file (COLUMNAR_ECORRUPT,
 * and a columnar_verify finding), and does not follow the links inside mixed values: deleting the target leaves
 * the link as it is (keys are never reused, so the reader can tell it is gone). MIXED columns and collection
 * elements are always nullable (null is the "none" value and a new row's default; columnar_column_add refuses
 * nullable = false), cannot be indexed or be a primary key. A SET of MIXED values keeps them unique and ordered
 * by their encodings' bytes, as a set of BINARY values: by type tag first, so 1 (INT) and 1.0 (DOUBLE) are two
 * elements, and numbers of one type are in the order of their little-endian bytes, not by value. */

/* Nested collections. A mixed value can also hold a list or a dictionary of mixed values (RealmSwift's
 * `AnyRealmValue.list` and `.dictionary`), stored inside the value's own encoding, so the whole tree is read and
 * written as one value. Tag COLUMNAR_MIXED_LIST: a u32 count, then per element a u32 size and that many bytes, the
 * element's encoding (size 0: null). Tag COLUMNAR_MIXED_DICTIONARY: a u32 count, then per entry a u32 key size,
 * the key's UTF-8 bytes, and the value as a list element is stored; keys are unique and in strictly ascending
 * bytewise order. Elements may be collections again, up to COLUMNAR_MIXED_MAX_DEPTH levels in all. Decoding checks
 * the whole tree (bounds, order, every element, no bytes left over) and gives a value of type
 * COLUMNAR_MIXED_LIST or COLUMNAR_MIXED_DICTIONARY whose `as.bytes` is the payload after the tag; a
 * columnar_mixed_cursor walks it. A collection compares unequal to every constant, and is never ordered. Sets of
 * mixed values take such encodings as they take any other (by bytes); the object API refuses them, as RealmSwift
 * does. */
#define COLUMNAR_MIXED_LIST 13
#define COLUMNAR_MIXED_DICTIONARY 14
#define COLUMNAR_MIXED_MAX_DEPTH 100u

/** A walk over the elements (or entries) of a decoded nested collection. */
typedef struct columnar_mixed_cursor {
    const uint8_t *next;
    const uint8_t *end;
    uint32_t remaining;
    bool dictionary;
} columnar_mixed_cursor;

/** Starts a walk over `collection`, a value columnar_mixed_decode gave with type COLUMNAR_MIXED_LIST or
 *  COLUMNAR_MIXED_DICTIONARY; *out_count (may be NULL) is its number of elements or entries. Returns 0 or
 *  COLUMNAR_EMISUSE (another type). */
int columnar_mixed_cursor_init(const columnar_value *collection, columnar_mixed_cursor *cursor, uint32_t *out_count);
/** The next element, in order: *out_element is null (`is_null`, type MIXED) or a MIXED value whose `as.bytes` is
 *  the element's encoding (pointing into the collection's bytes); for a dictionary *out_key (may be NULL) is the
 *  entry's key as a STRING. Returns false once every element has been given. */
bool columnar_mixed_cursor_next(columnar_mixed_cursor *cursor, columnar_value *out_key, columnar_value *out_element);

/** The largest encoding of a non-string, non-binary mixed value: the tag and 16 bytes. */
#define COLUMNAR_MIXED_FIXED_BYTES 17u

/** Encodes a non-null value of type INT ... LINK (a LINK with `as.typed_link` naming its table) as a mixed value
 *  into `out` (at most `capacity` bytes); *out_size is the encoding's size (1 + payload), also when the capacity
 *  is too small. Returns 0, COLUMNAR_ETOOBIG (capacity too small, or the encoding would pass
 *  COLUMNAR_MAX_VALUE_BYTES), COLUMNAR_EMISUSE (a null value, type MIXED or unknown, a negative link key,
 *  nanoseconds outside 0 ... 999,999,999). */
int columnar_mixed_encode(const columnar_value *value, void *out, size_t capacity, size_t *out_size);
/** Decodes a mixed value's encoding (`size` >= 1) into a value of its own type; STRING and BINARY results point
 *  into `data`, a LINK result has `as.typed_link`, a nested collection is described under "Nested collections".
 *  Returns 0 or COLUMNAR_ECORRUPT (an unknown tag, a payload of the wrong size for its tag, a bool other than 0 or
 *  1, nanoseconds out of range, a negative link key, a nested collection that does not check). */
int columnar_mixed_decode(const void *data, size_t size, columnar_value *out);

/* ---------------------------------------------------------------------------------------------------------- */
/* Database files                                                                                               */
/* ---------------------------------------------------------------------------------------------------------- */

typedef struct columnar_db columnar_db;
typedef struct columnar_txn columnar_txn;
typedef struct columnar_io columnar_io;           /* I/O layer; see "Testing hooks" */

#define COLUMNAR_MAX_MAP_BYTES (1ull << 40)        /* 1 TiB of address space per open file */

enum columnar_open_flags {
    COLUMNAR_OPEN_CREATE = 1u << 0,     /**< create the file if it does not exist */
    COLUMNAR_OPEN_READ_ONLY = 1u << 1,  /**< never write; begin_write fails with COLUMNAR_EREADONLY */
    COLUMNAR_OPEN_IN_MEMORY = 1u << 2,  /**< nothing on disk: `path` is an identifier shared within the process */
    COLUMNAR_OPEN_NO_LOCK = 1u << 3,    /**< with READ_ONLY: do not open the lock file (inspection tools) */
    COLUMNAR_OPEN_NO_IO_URING = 1u << 4,/**< commit with pwrite + fdatasync even where io_uring works */
    COLUMNAR_OPEN_PARANOID = 1u << 5,   /**< verify each node's checksum every time it is read */
};

typedef enum columnar_durability {
    COLUMNAR_DURABILITY_FULL = 0,    /**< a commit returns once durable: one fdatasync, shared (default) */
    COLUMNAR_DURABILITY_UNSAFE = 1,  /**< a commit does not wait for a sync (caveat 4) */
} columnar_durability;

typedef struct columnar_open_options {
    uint32_t flags;                 /**< columnar_open_flags */
    columnar_durability durability;
    uint64_t max_active_versions;   /**< 0: no limit. Otherwise begin_write fails with COLUMNAR_EVERSIONS when
                                         more versions than this are live (pinned by readers, plus the latest). */
    uint32_t cluster_size;          /**< 0: default (COLUMNAR_DEFAULT_CLUSTER_SIZE); objects per cluster written,
                                         at most COLUMNAR_MAX_CLUSTER_SIZE */
    const columnar_io *io;          /**< NULL: the real file system. Testing hook, see columnar_faultio. */
    /** NULL: a plain file. Otherwise COLUMNAR_ENCRYPTION_KEY_BYTES bytes: the file is (or, created, will be)
     *  encrypted with this key (docs/Encryption.md). Opening fails with COLUMNAR_EKEY when the file's encryption
     *  and the key do not match. Not for in-memory databases. */
    const uint8_t *encryption_key;
} columnar_open_options;

#define COLUMNAR_ENCRYPTION_KEY_BYTES 64u

#define COLUMNAR_DEFAULT_CLUSTER_SIZE 256u
/** The largest cluster_size columnar_open accepts. */
#define COLUMNAR_MAX_CLUSTER_SIZE 65536u

/** Opens (or with COLUMNAR_OPEN_CREATE creates) the database at `path` and its lock file `<real path>.lock`.
 *  A new file is created atomically: built under no name (or a temporary one), made durable, then linked into
 *  place, so a crash leaves no file or a whole one; an existing empty file is replaced the same way. The first
 *  handle to open a file (no other has it open) recovers it: it opens at the newest version whose commit record
 *  verifies, which it makes durable again unless opened read-only.
 *  `options` may be NULL for defaults. The environment variable COLUMNAR_NO_IO_URING=1 has the effect of
 *  COLUMNAR_OPEN_NO_IO_URING.
 *  Errors: -ENOENT (no file and no CREATE), -EACCES and other -errno from open/mmap, COLUMNAR_ENOTDB,
 *  COLUMNAR_EFORMAT (another format version; the message names both), COLUMNAR_ECORRUPT (no version whose record
 *  verifies, or the current version's top structures fail validation), COLUMNAR_ELOCKFILE, COLUMNAR_ESTORAGE
 *  (the recovery could not be made durable), COLUMNAR_EMISUSE (contradictory flags, a key for an in-memory
 *  database), COLUMNAR_EKEY (an encrypted file without its key or with another key, a plain file with a key;
 *  nothing is changed), COLUMNAR_ECORRUPT also when a sector of an encrypted file fails authentication. */
int columnar_open(const char *path, const columnar_open_options *options, columnar_db **out_db);

/** Closes the database. Every transaction of this handle must have ended. Never writes to the data file. */
void columnar_close(columnar_db *db);

/** Deletes the database at `path` (the file it resolves to), its lock file and any unfinished compacted copy (see
 *  columnar_compact), when no handle in any process has it open; an open that had already reached the file starts
 *  over and finds it gone. `*out_deleted` (may be NULL) says whether the data file existed. Errors: -EBUSY (the file is open), -errno of the file system. */
int columnar_delete_files(const char *path, bool *out_deleted);

/** A dense copy of the version `txn` (a read transaction) sees, written to a new file at `path`: tables filled in
 *  key order (full clusters), collections and search indexes rebuilt in order, removed tables and columns left out.
 *  Object keys and primary keys are kept, and a table whose objects all have their int primary key as their key is
 *  marked so (columnar_table_info.keys_are_primary_keys); table and column ids may differ (find them by name).
 *  Other threads and processes go on reading and writing the source meanwhile. The copy is built under
 *  `<path>.copying`, committed durably, then linked into place and the directory synced: a crash leaves no file at
 *  `path` or a complete one.
 *  `options` (may be NULL) gives the copy's cluster_size, COLUMNAR_OPEN_NO_IO_URING and encryption_key (the copy
 *  is encrypted with that key, whatever the source's encryption; NULL: a plain copy).
 *  Errors: -EEXIST (a file exists at `path`), -EBUSY (another copy to `path` is being written), COLUMNAR_EMISUSE (a
 *  write transaction, other open flags), -errno of creating, linking or syncing, COLUMNAR_ECORRUPT and the errors
 *  of reading the source. Nothing is left at `path` on an error. */
int columnar_write_copy(columnar_txn *txn, const char *path, const columnar_open_options *options);

/** What columnar_compact did. Sizes in bytes. */
typedef struct columnar_compact_result {
    bool compacted;               /**< the file was replaced by its compacted copy */
    uint64_t size_before_bytes;   /**< the file's size before */
    uint64_t used_before_bytes;   /**< bytes its latest version used (nodes, not counting free space) before */
    uint64_t size_after_bytes;    /**< the compacted file's size (0 when not compacted) */
} columnar_compact_result;

/** Asked with the file's size and the bytes its latest version uses; true to compact. */
typedef bool (*columnar_compact_decision)(uint64_t size_bytes, uint64_t used_bytes, void *context);

/** Replaces the database at `path` (its real path: a symlink stays a symlink) by a dense copy of its latest
 *  version, as columnar_write_copy writes, when no handle in any process has it open. Openers meanwhile wait and
 *  then open the new file. `decide` (may be NULL: always) sees the sizes first. The copy is built under
 *  `<real path>.compacting`, made durable, renamed over the file and the directory synced: a crash at any moment
 *  leaves the old file or the new one, complete (and perhaps the temporary file, removed by the next compaction
 *  or columnar_delete_files). `out` may be NULL. `options->encryption_key` (may be NULL) opens an encrypted
 *  file, and its compacted copy is encrypted with the same key.
 *  Errors: -EBUSY (the file is open), -ENOENT, COLUMNAR_EMISUSE (open flags other than NO_IO_URING), the errors of
 *  opening the file and of columnar_write_copy. The file is unchanged on an error. */
int columnar_compact(const char *path, const columnar_open_options *options, columnar_compact_decision decide,
                     void *context, columnar_compact_result *out);

/** Which commit path the database uses. */
typedef enum columnar_commit_path {
    COLUMNAR_COMMIT_PATH_IO_URING = 1,  /**< nodes written with one batched io_uring submission per commit */
    COLUMNAR_COMMIT_PATH_PWRITE = 2,    /**< pwritev + fdatasync (io_uring refused or turned off) */
    COLUMNAR_COMMIT_PATH_MEMORY = 3,    /**< in-memory database: no durable storage */
} columnar_commit_path;

/** Returns the commit path in use. */
columnar_commit_path columnar_db_commit_path(const columnar_db *db);
/** Returns "io_uring", "pwrite" or "memory"; with io_uring refused, why (e.g. "pwrite (io_uring: EPERM)"). */
const char *columnar_db_commit_path_description(const columnar_db *db);

/** Makes every commit made so far (by any handle of the file) durable, with one fdatasync shared with concurrent
 *  committers. For COLUMNAR_DURABILITY_UNSAFE handles at the points where durability matters (commits with FULL
 *  are durable when they return). Errors: COLUMNAR_EMISUSE (read-only handle), the fdatasync's -errno (the
 *  commits it was to make durable are then gone: caveat 4), COLUMNAR_ESTORAGE. */
int columnar_db_sync(columnar_db *db);

/** Statistics of the latest version (no transaction needed). */
typedef struct columnar_db_stats {
    uint64_t version;             /**< latest committed version readers are given */
    uint64_t durable_version;     /**< latest version known to be on stable storage (<= version with UNSAFE) */
    uint64_t live_versions;       /**< distinct versions pinned by readers (any process), plus the latest */
    uint64_t oldest_pinned;       /**< the oldest version any reader pins (== version when none) */
    uint64_t file_size_bytes;     /**< bytes allocated on disk (grows in large steps) */
    uint64_t used_size_bytes;     /**< bytes up to the end of the last node of the latest version */
    uint64_t free_bytes;          /**< bytes on the free list (reusable now or once old readers end) */
    uint32_t cluster_size;        /**< objects per cluster this handle writes */
} columnar_db_stats;

/** Fills `out` with statistics. Errors: COLUMNAR_ECORRUPT. */
int columnar_db_stats_get(columnar_db *db, columnar_db_stats *out);

/* ---------------------------------------------------------------------------------------------------------- */
/* Transactions                                                                                                 */
/* ---------------------------------------------------------------------------------------------------------- */

/** Begins a read transaction pinned at the latest version.
 *  Errors: COLUMNAR_EREADERS (reader table full), COLUMNAR_ECORRUPT, -ENOMEM. */
int columnar_txn_begin_read(columnar_db *db, columnar_txn **out_txn);

/** Begins the write transaction, waiting for the writer lock (held across threads and processes).
 *  Errors: COLUMNAR_EREADONLY, COLUMNAR_EVERSIONS (live-version cap reached), COLUMNAR_ECORRUPT, -ENOMEM,
 *  COLUMNAR_ELOCKFILE. */
int columnar_txn_begin_write(columnar_db *db, columnar_txn **out_txn);

/** Begins another read transaction at the version `source` (a read transaction) reads, for another thread to read
 *  that version while `source` is in use (a transaction is used by one thread at a time). The version stays
 *  readable until both end. Errors: COLUMNAR_EMISUSE (write transaction), COLUMNAR_EPOISONED, COLUMNAR_EREADERS,
 *  -ENOMEM. */
int columnar_txn_begin_read_at(columnar_txn *source, columnar_txn **out_txn);

/** Moves a read transaction to the latest version (invalidating pointers it handed out).
 *  Errors: COLUMNAR_EMISUSE (write transaction), COLUMNAR_ECORRUPT. */
int columnar_txn_advance(columnar_txn *txn);

/** Commits a write transaction and frees it, or simply ends a read transaction. With durability FULL it returns
 *  once the version is durable; the writer lock is released before that, so other writers go on meanwhile and
 *  share the sync. On failure the transaction is rolled back and freed as well; nothing of it is visible, and it
 *  will not appear after a crash either (caveat 4).
 *  Errors: COLUMNAR_EPOISONED, COLUMNAR_EMAPFULL, -EIO/-ENOSPC and other -errno of the write path or of the
 *  fdatasync, COLUMNAR_ESTORAGE. */
int columnar_txn_commit(columnar_txn *txn);

/** Ends a transaction, discarding a write transaction's changes. Always succeeds. */
void columnar_txn_rollback(columnar_txn *txn);

/** The version the transaction reads (for a write transaction: the version it builds on). */
uint64_t columnar_txn_version(const columnar_txn *txn);
bool columnar_txn_is_write(const columnar_txn *txn);

/* ---------------------------------------------------------------------------------------------------------- */
/* Schema                                                                                                       */
/* ---------------------------------------------------------------------------------------------------------- */

typedef uint32_t columnar_table_id;
typedef uint32_t columnar_col_id;
#define COLUMNAR_NO_COLUMN UINT32_MAX
#define COLUMNAR_MAX_NAME_BYTES 63u

/** What a column holds per object: one value, or a collection of values. 0 means a single value. */
typedef enum columnar_collection_kind {
    COLUMNAR_COLLECTION_NONE = 0,
    COLUMNAR_COLLECTION_LIST = 1,   /**< ordered, duplicates allowed */
    COLUMNAR_COLLECTION_SET = 2,    /**< unique values, kept in the engine's value order */
    COLUMNAR_COLLECTION_DICT = 3,   /**< string keys (unique, sorted) to values */
} columnar_collection_kind;

typedef struct columnar_column_spec {
    const char *name;                 /**< 1 ... COLUMNAR_MAX_NAME_BYTES bytes, unique within the table */
    columnar_type type;               /**< of the value, or of each element */
    columnar_collection_kind collection;
    bool nullable;                    /**< values (elements) may be null; LINK single values are always nullable;
                                           MIXED columns must set it */
    bool indexed;                     /**< keep a search index (INT, BOOL, STRING, TIMESTAMP, OBJECTID, UUID) */
    columnar_table_id target_table;   /**< LINK: the table linked to */
} columnar_column_spec;

typedef struct columnar_column_info {
    char name[COLUMNAR_MAX_NAME_BYTES + 1];
    columnar_type type;
    columnar_collection_kind collection;
    bool nullable;
    bool indexed;
    bool is_primary_key;
    columnar_table_id target_table;   /**< LINK only */
    /** The search index keeps values in order (int, bool, timestamp and string columns indexed by this version),
     *  so the columnar_index_*range, *prefix and extreme functions can use it. */
    bool ordered_index;
} columnar_column_info;

typedef struct columnar_table_info {
    char name[COLUMNAR_MAX_NAME_BYTES + 1];
    uint32_t column_count;            /**< column ids run 0 ..< column_count; removed ones report ENOTFOUND */
    columnar_col_id primary_key;      /**< COLUMNAR_NO_COLUMN when none */
    uint64_t object_count;
    int64_t next_key;                 /**< the key the next object created gets: every object has a smaller key, and
                                           keys are never reused, so objects made later have this key or larger */
    bool keys_are_primary_keys;       /**< every object's key equals its int primary key, so a lookup by primary
                                           key, found or not, is one table descent (columnar_obj_find_primary_key) */
} columnar_table_info;

/** Number of table ids (removed tables keep their id and report COLUMNAR_ENOTFOUND). */
int columnar_table_count(columnar_txn *txn, uint32_t *out_count);
/** Adds a table. Errors: COLUMNAR_EEXISTS, COLUMNAR_EMISUSE (read txn, bad name), COLUMNAR_EPOISONED. */
int columnar_table_add(columnar_txn *txn, const char *name, columnar_table_id *out_table);
/** Finds a table by name. Errors: COLUMNAR_ENOTFOUND. */
int columnar_table_find(columnar_txn *txn, const char *name, columnar_table_id *out_table);
/** Describes a table. Errors: COLUMNAR_ENOTFOUND. */
int columnar_table_info_get(columnar_txn *txn, columnar_table_id table, columnar_table_info *out);
/** Renames a table. Errors: COLUMNAR_ENOTFOUND, COLUMNAR_EEXISTS, COLUMNAR_EMISUSE. */
int columnar_table_rename(columnar_txn *txn, columnar_table_id table, const char *new_name);
/** Removes a table and all its objects. Errors: COLUMNAR_ENOTFOUND, COLUMNAR_EMISUSE (another table links to
 *  it). */
int columnar_table_remove(columnar_txn *txn, columnar_table_id table);
/** Makes `column` the primary key (must be indexed-capable, single-valued; its values must be unique).
 *  COLUMNAR_NO_COLUMN clears it. Errors: COLUMNAR_ENOTFOUND, COLUMNAR_EMISUSE, COLUMNAR_EEXISTS (duplicates). */
int columnar_table_set_primary_key(columnar_txn *txn, columnar_table_id table, columnar_col_id column);

/** Adds a column; existing objects get null (nullable) or the type's zero value / empty collection.
 *  Errors: COLUMNAR_EEXISTS, COLUMNAR_ENOTFOUND (link target), COLUMNAR_EMISUSE (bad spec: an unknown type or
 *  collection kind, an index on a type that cannot have one, a MIXED column that is not nullable). */
int columnar_column_add(columnar_txn *txn, columnar_table_id table, const columnar_column_spec *spec,
                        columnar_col_id *out_column);
int columnar_column_find(columnar_txn *txn, columnar_table_id table, const char *name, columnar_col_id *out);
int columnar_column_info_get(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                             columnar_column_info *out);
int columnar_column_rename(columnar_txn *txn, columnar_table_id table, columnar_col_id column, const char *name);
/** Removes a column and its data (and its search index and backlinks). Errors: COLUMNAR_EMISUSE (primary key). */
int columnar_column_remove(columnar_txn *txn, columnar_table_id table, columnar_col_id column);
/** Adds or drops a column's search index. Errors: COLUMNAR_EMISUSE (type cannot be indexed). */
int columnar_column_set_indexed(columnar_txn *txn, columnar_table_id table, columnar_col_id column, bool indexed);

/* ---------------------------------------------------------------------------------------------------------- */
/* Objects                                                                                                      */
/* ---------------------------------------------------------------------------------------------------------- */

typedef int64_t columnar_key;   /**< object key: 0 ... INT64_MAX - 1, stable for the object's life */

/** Creates an object with the next unused key (keys are never reused within a table). Every column starts at its
 *  default: null when nullable, else zero / empty; an empty collection.
 *  Errors: COLUMNAR_EMISUSE (read txn), COLUMNAR_ENOTFOUND (table), COLUMNAR_EEXISTS (the table has a primary key
 *  and another object already has the default value there; use columnar_obj_create_with_primary_key),
 *  COLUMNAR_ETOOBIG (an object has key INT64_MAX - 1, so no key is left above it). */
int columnar_obj_create(columnar_txn *txn, columnar_table_id table, columnar_key *out_key);
/** Creates an object with the given key. Errors: COLUMNAR_EEXISTS (key in use), COLUMNAR_EMISUSE (key < 0 or
 *  key == INT64_MAX). */
int columnar_obj_create_with_key(columnar_txn *txn, columnar_table_id table, columnar_key key);
/** Creates an object whose primary key column is set to `pk`, with the next unused key, except that an INT
 *  primary key at or above that key and at most 2^32 above it becomes the object's key itself (ids created in
 *  ascending order then have key == id, which columnar_obj_find_primary_key finds with one descent). Either way
 *  keys are never reused and increase in creation order. Errors: COLUMNAR_EEXISTS (value in use), ETYPE, ETOOBIG
 *  (no key left, as columnar_obj_create). */
int columnar_obj_create_with_primary_key(columnar_txn *txn, columnar_table_id table, const columnar_value *pk,
                                         columnar_key *out_key);
/** Deletes an object: links to it become null and it leaves every list, set and dictionary that held it.
 *  Errors: COLUMNAR_ENOTFOUND. */
int columnar_obj_delete(columnar_txn *txn, columnar_table_id table, columnar_key key);
/** Sets *out_exists. Errors: COLUMNAR_ENOTFOUND (table only). */
int columnar_obj_exists(columnar_txn *txn, columnar_table_id table, columnar_key key, bool *out_exists);
/** Number of objects in a table. */
int columnar_obj_count(columnar_txn *txn, columnar_table_id table, uint64_t *out_count);

/** Reads a single-valued column. Errors: COLUMNAR_ENOTFOUND (object/column), COLUMNAR_EMISUSE (collection
 *  column), COLUMNAR_ECORRUPT. */
int columnar_obj_get(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                     columnar_value *out);
/** Writes a single-valued column. `value->type` must be the column's type. Setting a LINK maintains the target's
 *  backlinks; setting an indexed column maintains its index; setting the primary key checks uniqueness.
 *  Errors: COLUMNAR_ETYPE, COLUMNAR_ENULL, COLUMNAR_ENOTFOUND (object, column, link target object),
 *  COLUMNAR_EEXISTS (primary key value in use), COLUMNAR_ETOOBIG, COLUMNAR_EMISUSE. */
int columnar_obj_set(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                     const columnar_value *value);
/** Fast path for INT/BOOL/LINK columns: *out_value (0 when null) and *out_is_null. In a table whose objects are
 *  all keyed by their int primary key (columnar_table_info's keys_are_primary_keys), the primary key is answered
 *  from the object's key without reading its column; columnar_obj_get always reads the stored value. */
int columnar_obj_get_int(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                         int64_t *out_value, bool *out_is_null);
/** Reads a single-valued column of `count` objects: out_values[i] is what columnar_obj_get gives for keys[i]. The
 *  keys may come in any order and repeat. Rather than one tree descent per object, the clusters holding the keys
 *  are each read once (keys in a narrow span into tables indexed by key, others after sorting the keys), so
 *  reading the objects of a sorted result costs about what reading them in key order does. String and binary
 *  values point where columnar_obj_get's would.
 *  Errors: COLUMNAR_ENOTFOUND (table, column, or an object: *out_failed_index, when given, is the position of a
 *  key with no object, the first one in key order or in `keys` order; UINT64_MAX otherwise), COLUMNAR_EMISUSE (collection column, negative key, NULL arrays with count > 0),
 *  COLUMNAR_ECORRUPT, -ENOMEM. On an error the contents of out_values are unspecified. */
int columnar_obj_get_many(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                          const columnar_key *keys, uint64_t count, columnar_value *out_values,
                          uint64_t *out_failed_index);
/** columnar_obj_get_many for INT, BOOL and LINK columns into plain arrays: out_values[i] (0 when null, 0 or 1 for
 *  a bool) and, when out_is_null is not NULL, out_is_null[i]. Errors as columnar_obj_get_many, and COLUMNAR_ETYPE
 *  for a column of another type. */
int columnar_obj_get_many_int(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                              const columnar_key *keys, uint64_t count, int64_t *out_values, bool *out_is_null,
                              uint64_t *out_failed_index);

/** Finds an object whose `column` equals `value` (the search index when the column has one, else a scan).
 *  Sets *out_key, or returns COLUMNAR_ENOTFOUND. */
int columnar_obj_find_first(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                            const columnar_value *value, columnar_key *out_key);
/** Finds the object with the given primary key value. An INT value is first looked for as an object key (see
 *  columnar_obj_create_with_primary_key); the object there is taken only if it holds the value, else the index
 *  answers. In a table whose every object is keyed by its id (columnar_table_info.keys_are_primary_keys: every
 *  object was created with an id at or above the next key, and no id was changed since) the object key alone
 *  answers, present or absent. Errors: COLUMNAR_ENOTFOUND, COLUMNAR_EMISUSE (no PK). */
int columnar_obj_find_primary_key(columnar_txn *txn, columnar_table_id table, const columnar_value *value,
                                  columnar_key *out_key);

/* ---------------------------------------------------------------------------------------------------------- */
/* Collections (columns whose collection kind is LIST, SET or DICT)                                             */
/* ---------------------------------------------------------------------------------------------------------- */

/** Number of elements (entries for a dictionary). */
int columnar_coll_size(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                       uint64_t *out_size);
/** Element at `index` (list: position; set: in value order; dictionary: the value of the index-th key in key
 *  order). Errors: COLUMNAR_ERANGE. */
int columnar_coll_get(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                      uint64_t index, columnar_value *out);
/** Removes every element. */
int columnar_coll_clear(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column);

/** List: inserts `value` before `index` (index == size appends). Errors: COLUMNAR_ERANGE, ETYPE, ENULL. */
int columnar_list_insert(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                         uint64_t index, const columnar_value *value);
/** List: replaces the element at `index`. */
int columnar_list_set(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                      uint64_t index, const columnar_value *value);
/** List: removes the element at `index`. */
int columnar_list_remove(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                         uint64_t index);
/** List: moves the element at `from` so that it ends up at `to`. */
int columnar_list_move(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                       uint64_t from, uint64_t to);

/** Set: inserts `value` unless present; *out_inserted (may be NULL) says whether it was added. */
int columnar_set_insert(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                        const columnar_value *value, bool *out_inserted);
/** Set: removes `value` if present; *out_removed (may be NULL). */
int columnar_set_remove(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                        const columnar_value *value, bool *out_removed);
/** Set (or list): whether `value` is an element. */
int columnar_coll_contains(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                           const columnar_value *value, bool *out_contains);

/** Dictionary: sets the value for a key (inserting or replacing). Keys are 0 ... COLUMNAR_MAX_NAME_BYTES*4 bytes. */
int columnar_dict_set(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                      const void *dict_key, size_t dict_key_size, const columnar_value *value);
/** Dictionary: the value for a key; *out_found false (and *out untouched) when absent. */
int columnar_dict_get(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                      const void *dict_key, size_t dict_key_size, columnar_value *out, bool *out_found);
/** Dictionary: removes a key; *out_removed (may be NULL). */
int columnar_dict_remove(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                         const void *dict_key, size_t dict_key_size, bool *out_removed);
/** Dictionary: the index-th key in key order (points into the mapping or transaction memory). */
int columnar_dict_key_at(columnar_txn *txn, columnar_table_id table, columnar_key key, columnar_col_id column,
                         uint64_t index, const void **out_key, size_t *out_key_size);

/** Backlinks: how many times objects of `origin_table` link to this object through `origin_column` (a LINK
 *  column or a list/set/dictionary of links). */
int columnar_backlink_count(columnar_txn *txn, columnar_table_id table, columnar_key key,
                            columnar_table_id origin_table, columnar_col_id origin_column, uint64_t *out_count);
/** The index-th origin object's key (in the order the links were made). */
int columnar_backlink_get(columnar_txn *txn, columnar_table_id table, columnar_key key,
                          columnar_table_id origin_table, columnar_col_id origin_column, uint64_t index,
                          columnar_key *out_origin_key);

/* ---------------------------------------------------------------------------------------------------------- */
/* Cluster-by-cluster iteration (the scan interface the query engine builds on)                                 */
/* ---------------------------------------------------------------------------------------------------------- */

/** How a column array is stored. 0 is reserved. */
typedef enum columnar_encoding {
    COLUMNAR_ENCODING_PACKED_INT = 1,  /**< `width` bits per element: 0,1,2,4 unsigned; 8,16,32,64 signed */
    COLUMNAR_ENCODING_REFS = 2,        /**< 64-bit refs to child nodes */
    COLUMNAR_ENCODING_FLOAT = 3,       /**< 32-bit floats */
    COLUMNAR_ENCODING_DOUBLE = 4,      /**< 64-bit doubles */
    COLUMNAR_ENCODING_BYTES = 5,       /**< `count` raw bytes */
    COLUMNAR_ENCODING_FIXED = 6,       /**< `count` elements of `width` bytes each */
    COLUMNAR_ENCODING_SHORT_STRINGS = 7,/**< `count` slots of `width` bytes; last byte of a slot = width-1-length */
} columnar_encoding;

/** A read-only view of one array node in the mapping. */
typedef struct columnar_array {
    columnar_encoding encoding;
    uint32_t width;        /**< bits for PACKED_INT; bytes per element for FIXED and SHORT_STRINGS */
    uint64_t count;        /**< elements (bytes for BYTES) */
    const void *data;      /**< first byte of the payload */
    int64_t base;          /**< PACKED_INT: added to every stored element (a frame of reference; 0 in most arrays).
                                Read elements through columnar_array_get_int / columnar_array_decode_int. */
} columnar_array;

/** Reads element `index` of a PACKED_INT array (no bounds check: index < array->count). */
int64_t columnar_array_get_int(const columnar_array *array, uint64_t index);

/** Decodes elements `from` ..< `from + count` of a PACKED_INT array into `out` (no bounds check: from + count <=
 *  array->count), a block at a time rather than an element per call (a cluster's keys, for instance). */
void columnar_array_decode_int(const columnar_array *array, uint64_t from, uint64_t count, int64_t *out);

typedef struct columnar_cluster_iter {
    columnar_txn *txn;
    columnar_table_id table;
    uint64_t next_key;      /* internal: the smallest key not yet visited */
    bool done;
} columnar_cluster_iter;

/** One cluster: `row_count` objects whose keys are in `keys` (PACKED_INT, ascending). */
typedef struct columnar_cluster {
    uint64_t row_count;
    columnar_array keys;
    uint64_t ref;           /**< the cluster node's ref (0 for clusters not yet committed in a write txn) */
} columnar_cluster;

/** Starts iterating `table` in key order. */
int columnar_cluster_iter_init(columnar_txn *txn, columnar_table_id table, columnar_cluster_iter *iter);
/** The same from the cluster holding `from_key` (or the first after it): a reader that takes a table's keys a
 *  cluster at a time, across reads and writes between the clusters, resumes here. That first cluster may hold keys
 *  below `from_key`, which the caller skips. A negative `from_key` starts at the beginning. */
int columnar_cluster_iter_init_from(columnar_txn *txn, columnar_table_id table, columnar_key from_key,
                                    columnar_cluster_iter *iter);
/** Moves to the next cluster; returns COLUMNAR_ENOTFOUND after the last. In a write transaction, clusters
 *  changed by it are reported by key range as well (their `ref` is 0). */
int columnar_cluster_iter_next(columnar_cluster_iter *iter, columnar_cluster *out_cluster);

/* ---------------------------------------------------------------------------------------------------------- */
/* Scans and kernels (the query VM's inner loops)                                                               */
/* ---------------------------------------------------------------------------------------------------------- */

/* A scan walks a table cluster by cluster, in key order, and hands out each cluster's column arrays as views the
 * kernels below read directly (committed clusters: straight from the mapping; clusters a write transaction has
 * changed: from the transaction's private memory, or from scratch memory the scan owns where the private form
 * differs from a view's: timestamps, and strings, which a private cluster presents in the long form). The
 * kernels process one cluster's rows per call and write a byte mask, one byte per row (1: the row matches, 0: it
 * does not); they are plain loops over the packed arrays that the compiler vectorizes. A mask holds at most
 * columnar_scan_max_rows() bytes.
 *
 * Kernels read only what a view describes and never fail on values: a view of the wrong type for a kernel, or an
 * unknown operator, gives an all-zero mask (the string kernel also returns COLUMNAR_EMISUSE). The nulls of a
 * row come from the view's NULLS array whatever `nullable` says; `nullable` matters only for all_default views. */

/** The arrays of one column within the current cluster of a scan. Arrays whose `encoding` is 0 are absent. */
typedef struct columnar_column_view {
    columnar_type type;
    uint64_t count;          /**< rows: the cluster's row_count */
    bool nullable;           /**< the column's schema allows nulls */
    /** Every row holds the column's default (the cluster stores nothing for the column): null when `nullable`,
     *  else zero, false, "", empty data, 1970-01-01, the zero ObjectId/UUID/Decimal128. All arrays are absent. */
    bool all_default;
    columnar_array values;   /**< INT/BOOL/LINK: PACKED_INT; FLOAT; DOUBLE; STRING/BINARY: SHORT_STRINGS, or
                                  PACKED_INT of end offsets into `blob` (long form); TIMESTAMP: PACKED_INT of
                                  seconds; OBJECTID/UUID/DECIMAL128: FIXED */
    columnar_array blob;     /**< STRING/BINARY long form: BYTES */
    columnar_array nanos;    /**< TIMESTAMP: PACKED_INT of nanoseconds */
    columnar_array nulls;    /**< PACKED_INT, non-zero = null (a committed cluster's is 1 bit per row, a private
                                  cluster's 1 byte per row); absent when no row is null */
} columnar_column_view;

typedef struct columnar_scan columnar_scan;

/** Starts a scan of `table` in `txn` (read or write). The scan sees the transaction's current state; it must not
 *  outlive the transaction, and the transaction must not be modified (nor a read transaction advanced) while the
 *  scan is in use. `*out_scan` is NULL on failure.
 *  Errors: COLUMNAR_ENOTFOUND (table), COLUMNAR_EMISUSE / COLUMNAR_EPOISONED (transaction), COLUMNAR_ECORRUPT
 *  (the table's node), -ENOMEM. */
int columnar_scan_open(columnar_txn *txn, columnar_table_id table, columnar_scan **out_scan);
/** Moves to the next cluster with at least one row and describes it (keys ascending, as PACKED_INT; `ref` is 0
 *  for a cluster the write transaction changed). Each call steps from the previous cluster to the next through a
 *  stack of the inner nodes above it, without a new descent from the root.
 *  Returns COLUMNAR_ENOTFOUND after the last cluster; COLUMNAR_ECORRUPT on a damaged node, a committed cluster
 *  without rows or with more than columnar_scan_max_rows(), or keys that do not rise from cluster to cluster
 *  (the scan then keeps returning COLUMNAR_ECORRUPT). */
int columnar_scan_next(columnar_scan *scan, columnar_cluster *out_cluster);
/** Views column `column` (a single-valued column) of the current cluster. The view stays valid until the next
 *  columnar_scan_next or columnar_scan_close; views of several columns of one cluster are valid together. A view
 *  of a committed cluster allocates nothing. Errors: COLUMNAR_ENOTFOUND (column), COLUMNAR_EMISUSE (no current
 *  cluster, or a collection column), COLUMNAR_ECORRUPT (the column's nodes fail validation), -ENOMEM. */
int columnar_scan_column(columnar_scan *scan, columnar_col_id column, columnar_column_view *out_view);
/** Ends a scan (NULL is ignored). */
void columnar_scan_close(columnar_scan *scan);
/** The largest row_count a scan can report (the mask size kernels need): a write transaction's private cluster
 *  is split once it passes 4 x the cluster size (at least 1024 rows), and the cluster size is at most
 *  COLUMNAR_MAX_CLUSTER_SIZE, so this is 4 x COLUMNAR_MAX_CLUSTER_SIZE (262,144). Committed clusters are at most
 *  COLUMNAR_MAX_CLUSTER_SIZE rows when written by this library; a larger one is reported as corrupt. */
uint64_t columnar_scan_max_rows(void);

/** Comparison operators of the kernels. */
typedef enum columnar_compare_op {
    COLUMNAR_COMPARE_EQ = 1,
    COLUMNAR_COMPARE_NE = 2,
    COLUMNAR_COMPARE_LT = 3,
    COLUMNAR_COMPARE_LE = 4,
    COLUMNAR_COMPARE_GT = 5,
    COLUMNAR_COMPARE_GE = 6,
} columnar_compare_op;

/* Null rules, the same in every comparison kernel: a null row equals a null constant and nothing else; NE is the
 * negation of EQ; LT, LE, GT and GE are false when the row or the constant is null. Floats and doubles follow
 * IEEE 754 (NaN is unequal to everything, itself included, and unordered). */

/** INT, BOOL (0/1) and LINK (object key) columns against a constant. */
void columnar_kernel_compare_int(const columnar_column_view *view, columnar_compare_op op, int64_t constant,
                                 bool constant_is_null, uint8_t *out_mask);
/** FLOAT and DOUBLE columns against a constant (a FLOAT column's values are widened to double exactly). */
void columnar_kernel_compare_double(const columnar_column_view *view, columnar_compare_op op, double constant,
                                    bool constant_is_null, uint8_t *out_mask);
/** TIMESTAMP columns against a constant, ordered by seconds then nanoseconds. */
void columnar_kernel_compare_timestamp(const columnar_column_view *view, columnar_compare_op op, int64_t seconds,
                                       int32_t nanoseconds, bool constant_is_null, uint8_t *out_mask);
/** OBJECTID, UUID and DECIMAL128 columns: EQ, NE (bytewise), and for OBJECTID and UUID also LT, LE, GT, GE
 *  (bytewise, unsigned; for DECIMAL128 they are 0 in every row). `constant` holds 12 or 16 bytes (may be NULL
 *  when `constant_is_null`). */
void columnar_kernel_compare_fixed(const columnar_column_view *view, columnar_compare_op op,
                                   const uint8_t *constant, bool constant_is_null, uint8_t *out_mask);
/** INT/BOOL/LINK membership: 1 where the row's value is one of `constants` (sorted ascending, no duplicates),
 *  or where the row is null and `match_null`. */
void columnar_kernel_in_int(const columnar_column_view *view, const int64_t *constants, size_t constant_count,
                            bool match_null, uint8_t *out_mask);
/** 1 where the row is null. */
void columnar_kernel_is_null(const columnar_column_view *view, uint8_t *out_mask);

/* Mixed kernels. A MIXED view has the arrays of a BINARY view (the rows' encodings), and columnar_view_get_bytes
 * reads them. Values compare as Realm compares mixed values: INT, FLOAT, DOUBLE and DECIMAL128 are numbers and
 * compare by numeric value across those types (exactly: an INT is never rounded to a double); STRING and BINARY
 * compare with each other, bytewise (shorter prefix first), as Realm's do; every other type compares only with
 * its own type: BOOL (false < true), TIMESTAMP by seconds then nanoseconds, OBJECTID and UUID bytewise; LINK
 * values are equal when table and key are, and have no order (LT, LE, GT, GE are 0 even for equal links). Values
 * of types that do not compare are unequal and unordered: EQ is 0, NE is 1, the orderings 0. Null rules as for
 * the other comparison kernels (an all_default MIXED view is all null). NaN is unequal to everything and
 * unordered. */

/** MIXED rows against `constant`, a value of type INT ... LINK (LINK with `as.typed_link`), or null
 *  (`constant->is_null`). Writes 0 or 1 per row, or 2 for a row the kernel leaves to the caller: one where a
 *  DECIMAL128 would have to be compared with a number (the row's value or the constant; the engine does not
 *  interpret decimals), and a LINK row compared with null or with a link (the engine does not follow links in
 *  mixed values, so a link whose object was deleted, which readers take as null, is the caller's to tell). Returns 0, COLUMNAR_ECORRUPT (a row's encoding does not decode; the mask is then partly
 *  written) or COLUMNAR_EMISUSE (not a MIXED view, an unknown operator, a MIXED or unknown constant type, a STRING
 *  or BINARY constant with a NULL pointer and a non-zero size; the mask is then all zero). A DECIMAL128 against a
 *  value that is not a number (or against null) is decided: they do not compare. */
int columnar_kernel_compare_mixed(const columnar_column_view *view, columnar_compare_op op,
                                  const columnar_value *constant, uint8_t *out_mask);
/** 1 where the row's type is in `type_mask`: bit (1u << t) for columnar_type t, bit 0 for null rows (`@type`
 *  queries); 2 for a LINK row when the mask has one of the LINK and null bits but not the other (a link whose
 *  object was deleted is null: the caller tells). Returns 0, COLUMNAR_ECORRUPT or COLUMNAR_EMISUSE (not a MIXED view). */
int columnar_kernel_mixed_type(const columnar_column_view *view, uint32_t type_mask, uint8_t *out_mask);

/** String and binary matching. */
typedef enum columnar_string_op {
    COLUMNAR_STRING_EQ = 1,
    COLUMNAR_STRING_NE = 2,
    COLUMNAR_STRING_BEGINS_WITH = 3,
    COLUMNAR_STRING_ENDS_WITH = 4,
    COLUMNAR_STRING_CONTAINS = 5,
    COLUMNAR_STRING_LIKE = 6,       /**< `?` matches one UTF-8 character, `*` zero or more */
    COLUMNAR_STRING_LT = 7,         /**< bytewise (= Unicode scalar order for UTF-8), shorter prefix first */
    COLUMNAR_STRING_LE = 8,
    COLUMNAR_STRING_GT = 9,
    COLUMNAR_STRING_GE = 10,
} columnar_string_op;

/** With this flag the match ignores ASCII letter case (and writes 2 for rows it cannot decide, see below). */
#define COLUMNAR_STRING_FOLD_ASCII_CASE 1u

/** STRING and BINARY columns against `needle` (`needle_size` bytes; NULL with size 0 for the null constant when
 *  `needle_is_null`). Writes 0 or 1 per row, or 2 for a row the kernel cannot decide: with
 *  COLUMNAR_STRING_FOLD_ASCII_CASE, a non-null row whose bytes are not all ASCII, and every non-null row when the
 *  needle's bytes are not all ASCII (full Unicode case folding can equate a non-ASCII character with an ASCII one,
 *  e.g. the Kelvin sign with "k"; the caller decides those rows itself). Null rules as for the comparison kernels
 *  (a null needle or row decides the row: never 2); BEGINS_WITH, ENDS_WITH, CONTAINS, LIKE and the orderings are
 *  false for a null row or a null needle. An empty needle is a prefix, suffix and substring of every non-null row.
 *  LIKE matches the whole value; `?` is one UTF-8 character (a byte that does not start a valid sequence counts
 *  as one), `*` any run of characters; there is no escape, so `?` and `*` cannot be matched literally.
 *  Returns 0, COLUMNAR_ECORRUPT when the column's lengths or offsets are inconsistent (the mask is then partly
 *  written), or COLUMNAR_EMISUSE (not a STRING/BINARY view, an unknown operator, a NULL needle with a non-zero
 *  size; the mask is all zero). */
int columnar_kernel_match_string(const columnar_column_view *view, columnar_string_op op, const void *needle,
                                 size_t needle_size, bool needle_is_null, uint32_t flags, uint8_t *out_mask);
/** columnar_kernel_match_string on a MIXED view: rows holding a STRING or a BINARY are matched on their bytes as
 *  that kernel matches them (0, 1, or 2 under the same rules); null rows as that kernel's null rows; rows of other
 *  types are 0, and 1 for COLUMNAR_STRING_NE. Returns as that kernel does (EMISUSE also for a view that is not
 *  MIXED). */
int columnar_kernel_match_mixed_string(const columnar_column_view *view, columnar_string_op op, const void *needle,
                                       size_t needle_size, bool needle_is_null, uint32_t flags,
                                       uint8_t *out_mask);
/** Row `row` (< view->count) of a STRING, BINARY or MIXED view (a mixed row's bytes are its encoding, not
 *  checked here: columnar_mixed_decode does): its bytes and size, or *out_is_null. The pointer stays
 *  valid while the view does and is never NULL (an empty value points at a static empty string).
 *  Returns 0, COLUMNAR_ECORRUPT (bad length or offsets), or COLUMNAR_EMISUSE (not a string view, row out of
 *  range). */
int columnar_view_get_bytes(const columnar_column_view *view, uint64_t row, const void **out_data,
                            size_t *out_size, bool *out_is_null);

/** Combines masks of `count` bytes: dst = dst AND src, dst = dst OR src, dst = NOT dst. Any non-zero byte counts as
 *  set; the results are 0/1. */
void columnar_mask_and(uint8_t *dst, const uint8_t *src, uint64_t count);
void columnar_mask_or(uint8_t *dst, const uint8_t *src, uint64_t count);
void columnar_mask_not(uint8_t *dst, uint64_t count);
/** The number of non-zero bytes of a mask. */
uint64_t columnar_mask_count(const uint8_t *mask, uint64_t count);

/** Running aggregate over the masked rows of numeric columns; nulls are skipped. Start from zero-initialized and
 *  use one aggregate per column. */
typedef struct columnar_aggregate {
    uint64_t count;          /**< non-null values seen */
    uint64_t int_sum_low;    /**< INT: the exact sum as a 128-bit two's complement number, low half */
    int64_t int_sum_high;    /**< ... and high half */
    double double_sum;       /**< FLOAT/DOUBLE: sum in double, added in row order */
    int64_t int_min, int_max;
    double double_min, double_max;  /**< NaN values are skipped by min/max but counted in sum and average */
    int64_t seconds_min, seconds_max;    /**< TIMESTAMP min/max, ordered by seconds then nanoseconds */
    int32_t nanos_min, nanos_max;
    uint64_t minmax_count;   /**< values min/max have taken in (count without NaNs): the min and max fields of the
                                  column's kind are meaningful only when this is > 0 */
} columnar_aggregate;

/** Adds the rows of `view` whose mask byte is non-zero (mask NULL: every row) to `aggregate`. INT (also BOOL and
 *  LINK, as 0/1 and keys), FLOAT, DOUBLE and TIMESTAMP (count and min/max only) columns; other views change
 *  nothing. An all_default view adds nothing when nullable, else one zero value per masked row. Of -0.0 and +0.0,
 *  which compare equal, a double min or max keeps the one that comes first in row order. */
void columnar_kernel_aggregate(const columnar_column_view *view, const uint8_t *mask, columnar_aggregate *aggregate);

/** Aggregates columnar_kernel_aggregate_select can be asked for (`count` is always kept). */
#define COLUMNAR_AGGREGATE_SUM 1u   /**< int_sum_low/high, double_sum */
#define COLUMNAR_AGGREGATE_MIN 2u   /**< int_min, double_min, seconds_min/nanos_min; and minmax_count */
#define COLUMNAR_AGGREGATE_MAX 4u   /**< int_max, double_max, seconds_max/nanos_max; and minmax_count */
#define COLUMNAR_AGGREGATE_ALL 7u   /**< all of them: what columnar_kernel_aggregate computes */

/** columnar_kernel_aggregate computing only the aggregates in `wanted` (COLUMNAR_AGGREGATE_* flags, or-ed; 0 keeps
 *  only the count): a sum or an average needs COLUMNAR_AGGREGATE_SUM, a min COLUMNAR_AGGREGATE_MIN, a max
 *  COLUMNAR_AGGREGATE_MAX. `count` is always updated, minmax_count with MIN or MAX; the fields of aggregates not
 *  wanted are left unchanged. Pass the same `wanted` in every call on one aggregate: a field is meaningful only when
 *  every call that added rows computed it. The aggregates are separate passes over a cluster's values, so each one
 *  left out saves time; most of all the FLOAT/DOUBLE sum, a loop in row order that costs more than min and max
 *  together. */
void columnar_kernel_aggregate_select(const columnar_column_view *view, const uint8_t *mask, uint32_t wanted,
                                      columnar_aggregate *aggregate);

/** Decodes an INT/BOOL/LINK view's values into `out_values` (`view->count` elements; 0 where null; BOOL as 0/1),
 *  and its null flags (0/1) into `out_nulls` (may be NULL). Likewise for FLOAT/DOUBLE views into doubles, and
 *  TIMESTAMP views into seconds and nanoseconds. A view of another type decodes as zeros. Used by sorting,
 *  distinct and value gathering. */
void columnar_view_decode_int(const columnar_column_view *view, int64_t *out_values, uint8_t *out_nulls);
void columnar_view_decode_double(const columnar_column_view *view, double *out_values, uint8_t *out_nulls);
void columnar_view_decode_timestamp(const columnar_column_view *view, int64_t *out_seconds, int32_t *out_nanos,
                                    uint8_t *out_nulls);

/** Search index: the keys of every object whose `column` (indexed or primary key) equals `value` (a null value:
 *  the objects holding null), ascending. Writes up to `capacity` keys to `out_keys` (may be NULL when `capacity`
 *  is 0) and the total number of matches to *out_count (call again with a larger buffer when it exceeds
 *  `capacity`). Values are filed under an index key; every candidate is checked against the object's
 *  actual value, so objects whose values merely share the hash are not reported.
 *  Errors: COLUMNAR_ENOTFOUND (table/column), COLUMNAR_EMISUSE (the column has no index, NULL arguments),
 *  COLUMNAR_ETYPE (the value's type is not the column's), COLUMNAR_ECORRUPT (the index lists a missing object),
 *  -ENOMEM. */
int columnar_index_find_all(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                            const columnar_value *value, columnar_key *out_keys, size_t capacity,
                            size_t *out_count);

/** Bounds of an int range; an absent bound (has_lower / has_upper false) leaves that side open. Bounds are
 *  non-null int values. */
typedef struct columnar_index_range {
    columnar_value lower;
    columnar_value upper;
    bool has_lower;
    bool has_upper;
    bool lower_inclusive;
    bool upper_inclusive;
} columnar_index_range;

/** Ordered search index (columnar_column_info.ordered_index) of an int column: how many objects hold a value in
 *  `range` (objects holding null are never in a range). Costs a descent per index cluster the range touches and
 *  no per-object work. Errors: COLUMNAR_ENOTFOUND, COLUMNAR_EMISUSE (no ordered index, null bound, NULL
 *  arguments), COLUMNAR_ETYPE (not an int column, a bound that is not an int), COLUMNAR_ECORRUPT. */
int columnar_index_count_range(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                               const columnar_index_range *range, uint64_t *out_count);
/** The keys of the objects columnar_index_count_range counts, ascending; the capacity and count contract of
 *  columnar_index_find_all (the keys are only sorted when they all fit). */
int columnar_index_keys_in_range(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                                 const columnar_index_range *range, columnar_key *out_keys, size_t capacity,
                                 size_t *out_count);
/** Ordered search index of a string column: how many objects hold a string starting with the `size` bytes at
 *  `prefix` (compared bytewise; an empty prefix counts every non-null string). Prefixes of up to six bytes
 *  without a zero byte are answered from the index alone; longer ones check each object the index narrows the
 *  search to. Errors as columnar_index_count_range. */
int columnar_index_count_prefix(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                                const void *prefix, size_t size, uint64_t *out_count);
/** The keys of the objects columnar_index_count_prefix counts, ascending (contract of columnar_index_find_all). */
int columnar_index_keys_with_prefix(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                                    const void *prefix, size_t size, columnar_key *out_keys, size_t capacity,
                                    size_t *out_count);
/** Ordered search index of an int or timestamp column: the smallest (or, with `maximum`, largest) non-null value
 *  of the table's objects; *out_found false when every object holds null or there are none. Errors as
 *  columnar_index_count_range. */
int columnar_index_extreme(columnar_txn *txn, columnar_table_id table, columnar_col_id column, bool maximum,
                           columnar_value *out_value, bool *out_found);
/** Ordered search index of any column that has one: every object of the table in index order. Entry i is the
 *  object out_keys[i] filed under the ordered key out_index_keys[i]; index keys ascend, and objects under one
 *  index key ascend by object key. Keys order values, but objects under equal keys (or, for strings, keys that
 *  share their top 48 bits) may hold different values: null and INT64_MIN share INT64_MIN; timestamps beyond
 *  +/-2^33 seconds share INT64_MIN + 1 or INT64_MAX; strings are ordered by their first six bytes only. Callers
 *  that need a full order sort those runs by value. Writes up to `capacity` entries and the total to *out_count
 *  (call again with room for all when it exceeds `capacity`; a partial write is not ordered). Costs one descent
 *  per index cluster and no per-object read. Errors as columnar_index_count_range. */
int columnar_index_ordered_entries(columnar_txn *txn, columnar_table_id table, columnar_col_id column,
                                   int64_t *out_index_keys, columnar_key *out_keys, size_t capacity,
                                   size_t *out_count);

/* ---------------------------------------------------------------------------------------------------------- */
/* Integrity                                                                                                    */
/* ---------------------------------------------------------------------------------------------------------- */

/** Called once per finding: the file offset involved and what is wrong. */
typedef void (*columnar_finding_fn)(void *context, uint64_t ref, const char *what);

/** Walks every node reachable from the transaction's version: bounds, alignment, header sanity, checksums,
 *  overlaps between nodes, overlap of nodes with free space, schema consistency, object counts, backlinks
 *  matching links, search indexes matching their columns. Calls `on_finding` (may be NULL) per problem and
 *  sets *out_findings. Returns COLUMNAR_OK when sound, COLUMNAR_ECORRUPT when anything was found, or
 *  COLUMNAR_EPOISONED / COLUMNAR_EMISUSE (bad transaction) and -ENOMEM without walking. */
int columnar_verify(columnar_txn *txn, columnar_finding_fn on_finding, void *context, uint64_t *out_findings);

/* ---------------------------------------------------------------------------------------------------------- */
/* Testing hooks: the I/O layer and fault injection                                                             */
/* ---------------------------------------------------------------------------------------------------------- */

/** One write of a batch: `size` bytes from `data` to file offset `offset`. */
typedef struct columnar_io_write {
    uint64_t offset;
    const void *data;
    size_t size;
} columnar_io_write;

/** Points of the commit path and of file creation, for tests that stop a process (or the power) between any two
 *  steps. 0 is never used. */
typedef enum columnar_step {
    COLUMNAR_STEP_WRITER_LOCKED = 1,   /**< begin_write holds the writer lock */
    COLUMNAR_STEP_NODES_WRITTEN = 2,   /**< a commit's nodes and record are written, its slot not yet */
    COLUMNAR_STEP_SLOT_WRITTEN = 3,    /**< its slot is written */
    COLUMNAR_STEP_CHAIN_ADVANCED = 4,  /**< the lock file names it the latest written version */
    COLUMNAR_STEP_WRITER_RELEASED = 5, /**< the writer lock is released; the commit is not durable yet */
    COLUMNAR_STEP_SYNC_STARTING = 6,   /**< a sync leader is about to fdatasync */
    COLUMNAR_STEP_SYNC_DONE = 7,       /**< the fdatasync returned; nothing is recorded yet */
    COLUMNAR_STEP_PUBLISHED = 8,       /**< the synced versions are durable and published */
    COLUMNAR_STEP_REPAIR_WRITTEN = 9,  /**< a repair rewrote a version and zeroed the slots above it, unsynced */
    COLUMNAR_STEP_CREATE_WRITTEN = 10, /**< a new file's first version is written, not yet synced */
    COLUMNAR_STEP_CREATE_SYNCED = 11,  /**< it is synced, not yet linked under its name */
    COLUMNAR_STEP_CREATE_LINKED = 12,  /**< it is linked; the directory is not yet synced */
} columnar_step;

/** The operations the engine performs on the data file. Every write and sync of the commit path goes through
 *  this table, so tests can replace it. Each returns 0 or -errno. */
struct columnar_io {
    void *context;
    /** Writes a batch of non-overlapping ranges (all or error). A commit writes its nodes in one batch and then,
     *  once that succeeded, its header slot in another. */
    int (*write_batch)(void *context, int fd, const columnar_io_write *writes, size_t write_count);
    /** fdatasync. Never called again to retry one that failed. */
    int (*sync)(void *context, int fd);
    /** Makes the file at least `size_bytes` long (preallocating). */
    int (*grow)(void *context, int fd, uint64_t size_bytes);
    /** Optional (may be NULL): told each time the engine reaches a step. */
    void (*step)(void *context, columnar_step step);
};

/** A fault-injecting I/O layer over the real one: a model of the page cache and a disk behind it, with Linux's
 *  failure semantics (a failed sync marks its pages clean; writeback in any order; torn sectors; a process dying
 *  between any two steps). The model's state lives in files beside the data file
 *  (".columnar-model-<device>-<inode>.*"), so every process writing the file through a fault layer shares it and
 *  a power cut can be applied after they all died. Its sync never calls fdatasync: the model's disk is the disk.
 *  docs/Reliability.md describes it. */
typedef struct columnar_faultio columnar_faultio;

typedef enum columnar_power_cut_mode {
    COLUMNAR_POWER_CUT_DROP = 1,    /**< no page that was dirty reaches the disk */
    COLUMNAR_POWER_CUT_RANDOM = 2,  /**< each dirty page reaches the disk whole, not at all, or torn at 512-byte
                                         sectors; the file's size is the synced one or the latest */
} columnar_power_cut_mode;

/** Creates a fault layer; `seed` drives its random choices. */
columnar_faultio *columnar_faultio_create(uint64_t seed);
void columnar_faultio_destroy(columnar_faultio *faultio);
/** The columnar_io to pass in columnar_open_options.io. */
const columnar_io *columnar_faultio_io(columnar_faultio *faultio);
/** After `write_count` more successful writes (each range of a batch counts; 0: from the next write on), every
 *  write fails with `error` (-EIO, -ENOSPC, ...). `error` 0 disables. */
void columnar_faultio_fail_writes_after(columnar_faultio *faultio, uint64_t write_count, int error);
/** After `write_count` more writes, the power is cut: that write and everything after it (writes, syncs, growth)
 *  fails with -EIO and is not applied. */
void columnar_faultio_power_cut_after(columnar_faultio *faultio, uint64_t write_count);
/** After `write_count` more writes the process kills itself (SIGKILL) inside the next write, leaving a prefix of
 *  it (whole pages) written. */
void columnar_faultio_kill_after_writes(columnar_faultio *faultio, uint64_t write_count);
/** At the `occurrence`-th time (1: the next) the engine reaches `step`, the process kills itself (`kill`) or the
 *  power is cut (everything after fails with -EIO). */
void columnar_faultio_at_step(columnar_faultio *faultio, columnar_step step, uint64_t occurrence, bool kill);
/** The sync after `syncs_before` more syncs fails with `error` as Linux fails one: it writes back part of the
 *  dirty pages, then marks them all clean; the rest stay only in the cache. */
void columnar_faultio_fail_sync(columnar_faultio *faultio, uint64_t syncs_before, int error);
/** Number of writes and syncs seen so far. */
uint64_t columnar_faultio_write_count(const columnar_faultio *faultio);
uint64_t columnar_faultio_sync_count(const columnar_faultio *faultio);
/** Background writeback: each dirty page of the file at `path` reaches the disk with probability `share`. */
int columnar_faultio_writeback(columnar_faultio *faultio, const char *path, double share);
/** Pages whose writeback failed are dropped from the cache and read back from the disk (memory pressure): the
 *  file at `path` then shows what the disk holds there. */
int columnar_faultio_evict_failed(columnar_faultio *faultio, const char *path);
/** The power cut, once every handle of the file at `path` is closed (and every process writing it is dead):
 *  the file becomes what the disk holds, with each dirty page treated as `mode` says. The model starts over
 *  from the result. Returns 0 or -errno. */
int columnar_faultio_apply_power_cut(columnar_faultio *faultio, const char *path, columnar_power_cut_mode mode);
/** Removes the model's files of the file at `path`. Returns 0 or -errno. */
int columnar_faultio_forget(const char *path);

/* ---------------------------------------------------------------------------------------------------------- */
/* Write log (what commits set, for change notifications)                                                       */
/* ---------------------------------------------------------------------------------------------------------- */

/* Change notifications compare versions to find what changed, which cannot see a property set to the value it
 * already held; the object model reports such a write as a modification. So once any handle of the file enables
 * the write log, writers may record the properties they set, and observers in any process read them back by the
 * versions that made them. The log is a ring in the lock file's shared memory (65,536 records): it remembers the
 * recent commits only, and a commit that sets more than half of it is recorded as incomplete. */

/** One property a write transaction set. */
typedef struct columnar_logged_write {
    columnar_table_id table;   /**< any table id but UINT32_MAX */
    columnar_col_id column;
    columnar_key key;
} columnar_logged_write;

/** Asks every writer of the file, in any process, to log what it sets (until the last handle closes the file).
 *  Errors: COLUMNAR_EMISUSE (a handle opened with COLUMNAR_OPEN_NO_LOCK has no shared memory). */
int columnar_write_log_enable(columnar_db *db);

/** Whether some handle of the file enabled the write log, so a writer should log what it sets. */
bool columnar_write_log_enabled(columnar_db *db);

/** Records what the write transaction set, under the version its commit will make. Called at most once per
 *  transaction, before the commit; a transaction that commits without calling it while the log is enabled is
 *  recorded as having set nothing. A commit that fails leaves an entry that the next commit of that version
 *  supersedes. Errors: COLUMNAR_EMISUSE (read transaction, second call, a table id of UINT32_MAX, no lock file),
 *  COLUMNAR_EPOISONED. */
int columnar_txn_log_writes(columnar_txn *txn, const columnar_logged_write *writes, size_t count);

/** Reads what the commits that made the versions after `after` up to `through` set, and hands it to `visit` once
 *  (an array of `count` writes, possibly with repeats, valid during the call; not called when there are none).
 *  `*out_complete` says whether every such commit's writes were found: false when the ring no longer holds some
 *  of them, when a commit's writes did not fit, or when a commit was made before the log was enabled.
 *  Errors: COLUMNAR_EMISUSE (no lock file), -ENOMEM. */
int columnar_write_log_read(columnar_db *db, uint64_t after, uint64_t through,
                            void (*visit)(void *context, const columnar_logged_write *writes, size_t count),
                            void *context, bool *out_complete);

/* ---------------------------------------------------------------------------------------------------------- */
/* Inspection (the read-only file inspector, columnar-inspect)                                                  */
/* ---------------------------------------------------------------------------------------------------------- */

/*
 * An inspector reads a database file the way a forensic tool should: it never writes the file, never opens,
 * locks or maps the lock file (columnar_inspect_lock_file only reads it), and decodes as much of a damaged file
 * as it can. It opens and maps the file read-only itself instead of going through columnar_open, so it can look
 * at a version the engine would refuse to open (a damaged top node or schema), at a file whose magic number or
 * format version is wrong but whose header slots still point somewhere, or at the older header slot.
 *
 * Every ref it follows is validated as the engine validates it (aligned, past the header, inside the version's
 * used size, a sane node header) before anything inside the node is read; damage is reported through a
 * columnar_finding_fn with its file offset and the walk goes on with the next sibling. Pointers it hands out
 * point into its mapping and stay valid until columnar_inspector_close.
 *
 * The inspector registers no reader, so a version it inspects is not protected from space reuse: on a file that
 * another process is writing, a version two or more commits old may be partly overwritten while it is being
 * read. Every read stays in bounds even then; the findings of such a run can be transient.
 */

typedef struct columnar_inspector columnar_inspector;

/** Owner of a node that belongs to no table (the top node, the schema, the free list). */
#define COLUMNAR_NO_TABLE UINT32_MAX

/** Commit slots in the header: version v lives in slot v % COLUMNAR_HEADER_SLOTS (sector 1 + that). */
#define COLUMNAR_HEADER_SLOTS 15u

/** One of the header's commit slots, decoded whether or not it is valid. */
typedef struct columnar_slot_info {
    uint64_t offset;              /**< file offset of its sector */
    uint64_t version;
    uint64_t top_ref;
    uint64_t used_size_bytes;
    uint64_t free_bytes;          /**< the slot's free-list summary */
    uint64_t base_version;        /**< the durable version its commit record reaches back to */
    uint32_t flags;               /**< 1: NODES_SYNCED (its nodes were durable before the slot was written) */
    uint32_t stored_checksum;
    uint32_t computed_checksum;   /**< CRC-32C of the sector's first 508 bytes */
    bool checksum_valid;
    bool is_zero;                 /**< all 512 bytes are zero: never written, or invalidated */
    bool usable;                  /**< checksum, file id, sector, version, refs and sizes fit */
    bool whole;                   /**< usable, and its version is whole: top, record and every range the record
                                       lists pass their checksums (what recovery requires) */
    char problem[256];            /**< why it is not usable or not whole ("" when whole) */
} columnar_slot_info;

/** The file header, decoded field by field even when it is damaged. */
typedef struct columnar_header_info {
    uint64_t file_size_bytes;
    uint64_t header_bytes_present; /**< how many of the 8192 header bytes the file has (fewer when truncated) */
    uint8_t magic[8];
    bool magic_valid;             /**< the magic is "CLMNRDB1" */
    uint32_t format_version;
    uint32_t header_bytes;        /**< declared header size (8192) */
    uint32_t sector_bytes;        /**< declared slot stride (512) */
    uint32_t slot_count;          /**< declared slot count (15) */
    uint8_t file_id[16];
    uint32_t stored_checksum;     /**< the identity sector's */
    uint32_t computed_checksum;
    bool identity_checksum_valid;
    uint32_t reserved_nonzero_at; /**< offset of the first non-zero reserved byte (identity bytes 80 ... 507, or the
                                       reserved bytes of a slot that is not zero), or 0 */
    uint32_t encryption;          /**< 0: a plain file; 1: encrypted (AES-256-CTR + HMAC-SHA256 sectors, format 3) */
    columnar_slot_info slots[COLUMNAR_HEADER_SLOTS];
    int32_t current_slot;         /**< the slot the engine would open (the whole one of the highest version), or -1 */
} columnar_header_info;

/** Opens `path` for inspection: reads the header and maps the whole file read-only. A file that is not a
 *  database, or is damaged, still opens: columnar_inspector_status() then says what is wrong. The inspector
 *  starts on the current slot's version when one is usable.
 *  Errors: -ENOENT, -EACCES, -EISDIR and other -errno of open/fstat/mmap; -ENOMEM. */
int columnar_inspector_open(const char *path, columnar_inspector **out_inspector);
/** columnar_inspector_open for an encrypted file: `key` (COLUMNAR_ENCRYPTION_KEY_BYTES; NULL: as
 *  columnar_inspector_open) decrypts the whole file into memory, and every view then shows its logical content
 *  (header_info.file_size_bytes stays the file's size). Without a key, an encrypted file's status is COLUMNAR_EKEY.
 *  Errors: those of columnar_inspector_open; COLUMNAR_EKEY (the file is not encrypted, or with another key). */
int columnar_inspector_open_with_key(const char *path, const uint8_t *key, columnar_inspector **out_inspector);

/** Unmaps the file and frees the inspector. NULL is allowed. */
void columnar_inspector_close(columnar_inspector *inspector);

/** The decoded header. Never NULL. */
const columnar_header_info *columnar_inspector_header(const columnar_inspector *inspector);

/** Whether the file can be opened as the engine would open it: 0, or COLUMNAR_ENOTDB (too short or wrong magic),
 *  COLUMNAR_EFORMAT (another format version), COLUMNAR_ECORRUPT (a damaged identity sector, or no whole version).
 *  `out_message` (may be NULL) receives a sentence saying why (a static string owned by the inspector, "" when
 *  sound) and `out_offset` (may be NULL) the file offset of the problem. A non-zero status does not stop the other
 *  calls when a slot is usable: they inspect that slot's version. */
int columnar_inspector_status(const columnar_inspector *inspector, const char **out_message, uint64_t *out_offset);

/** Makes the version of header slot `slot` (0 ... COLUMNAR_HEADER_SLOTS - 1) the one later calls inspect. A usable
 *  slot whose version is not whole can be selected (its damage is then what the walk reports).
 *  Errors: COLUMNAR_EMISUSE (no such slot), COLUMNAR_ECORRUPT (the slot is not usable; the message says why). */
int columnar_inspector_select_slot(columnar_inspector *inspector, int slot);

/** The version being inspected, as the header slot and the top node describe it. */
typedef struct columnar_inspect_version {
    int32_t slot;                 /**< the header slot it came from, -1 when no slot is usable */
    uint64_t version;
    uint64_t top_ref;
    uint64_t used_size_bytes;
    uint64_t file_size_bytes;
    uint64_t meta_version;        /**< the version recorded in the top node's META (0 when unreadable) */
    uint32_t cluster_size;        /**< objects per cluster of the writer (TOP META; 0 when unreadable) */
    uint64_t free_bytes;          /**< bytes on the version's free list (0 when unreadable) */
    uint64_t free_entry_count;
    uint32_t table_count;         /**< table ids in the schema, removed ones included (0 when unreadable) */
} columnar_inspect_version;

/** Describes the version being inspected. Fields that cannot be read stay 0.
 *  Errors: COLUMNAR_ENOTDB/EFORMAT/ECORRUPT when no slot is usable; COLUMNAR_ECORRUPT when the top node, its
 *  META or the free list cannot be read (columnar_last_error() names the offset; the fields read are kept). */
int columnar_inspect_version_get(columnar_inspector *inspector, columnar_inspect_version *out);

/** A table as the SCHEMA node and its TABLE node record it. */
typedef struct columnar_inspect_table {
    char name[COLUMNAR_MAX_NAME_BYTES + 1];
    bool removed;
    columnar_col_id primary_key;  /**< COLUMNAR_NO_COLUMN when none */
    uint32_t column_count;        /**< column ids, hidden backlink and removed columns included */
    uint64_t table_ref;           /**< the TABLE node, 0 when none (removed or missing) */
    int64_t object_count;         /**< from the table's META; -1 when it cannot be read */
    int64_t next_key;             /**< from the table's META; -1 when it cannot be read */
    bool keys_are_primary_keys;   /**< the META marks every object's key as equal to its int primary key */
} columnar_inspect_table;

/** A column exactly as the SCHEMA node records it (hidden backlink columns and removed columns included). */
typedef struct columnar_inspect_column {
    char name[COLUMNAR_MAX_NAME_BYTES + 1];
    columnar_type type;
    columnar_collection_kind collection;
    bool nullable;
    bool indexed;
    bool is_backlink;             /**< a hidden column holding the origins of links to this table */
    bool removed;
    bool is_primary_key;
    columnar_table_id target_table;   /**< LINK columns */
    columnar_table_id origin_table;   /**< backlink columns: the link column's table ... */
    columnar_col_id origin_column;    /**< ... and column */
} columnar_inspect_column;

/** Number of table ids in the schema. Errors: as columnar_inspect_version_get when no slot is usable;
 *  COLUMNAR_ECORRUPT when the SCHEMA node cannot be read or decoded (the message names its offset). */
int columnar_inspect_table_count(columnar_inspector *inspector, uint32_t *out_count);
/** Describes table `table`. Errors: those of columnar_inspect_table_count, COLUMNAR_ENOTFOUND (no such id).
 *  A TABLE node or META that cannot be read is not an error: table_ref or the counts say so. */
int columnar_inspect_table_get(columnar_inspector *inspector, columnar_table_id table, columnar_inspect_table *out);
/** Describes column `column` of `table`. Errors: those of columnar_inspect_table_count, COLUMNAR_ENOTFOUND. */
int columnar_inspect_column_get(columnar_inspector *inspector, columnar_table_id table, columnar_col_id column,
                                columnar_inspect_column *out);

/** One live node of the version, with what it is and whom it belongs to. */
typedef struct columnar_inspect_node {
    uint64_t ref;
    uint64_t size_bytes;          /**< bytes it occupies: 16-byte header + payload, padded to a multiple of 8 */
    uint64_t payload_bytes;
    uint64_t plain_bytes;         /**< what its payload would take in a plain fixed-width layout: 8 bytes per
                                       int64, link, key, ref or string offset, 1 per bool or null flag, 4 per float
                                       or nanosecond field, 12/16 per id, string bytes as they are */
    uint64_t parent_ref;          /**< 0 for the top node */
    uint8_t parent_role;          /**< the parent's role, 0 for the top node */
    uint32_t position;            /**< index of its ref in the parent */
    uint32_t depth;               /**< 0 for the top node */
    uint8_t role;                 /**< enum cf_role of format.h (1 TOP ... 19 COMMIT_RECORD) */
    const char *role_name;        /**< "TOP", "CLUSTER", ... */
    uint8_t role_detail;          /**< the value type for column nodes, else 0 */
    columnar_encoding encoding;
    uint32_t width;
    uint64_t count;
    bool checksum_valid;
    columnar_table_id table;      /**< owning table, or COLUMNAR_NO_TABLE */
    columnar_col_id column;       /**< owning column, or COLUMNAR_NO_COLUMN (table structure, file structure) */
    bool in_index;                /**< part of the search index of `column` */
    bool in_collection;           /**< part of a list, set, dictionary or backlink list held by one object, or of
                                       the list of further object keys of one search-index entry */
    const char *what;             /**< "top", "version meta", "schema", "table list", "free list", "commit record",
                                       "table",
                                       "table meta", "index list", "tree inner node", "inner keys", "cluster",
                                       "cluster keys", "column leaf", "values", "string blob", "null bitmap",
                                       "list", "set", "dictionary", "backlinks", "collection", "index" */
} columnar_inspect_node;

/** Called once per live node, in depth-first order (a parent before its children); non-zero stops the walk. */
typedef int (*columnar_inspect_node_fn)(void *context, const columnar_inspect_node *node);

/** Walks every node reachable from the version's top node. Each node is reported once: a node reached a second
 *  time (refs may not be shared), a ref that fails validation, a tree deeper than 64 levels, and a checksum
 *  failure (the node is still reported and walked) go to `on_damage` (may be NULL) with their offsets.
 *  Returns 0 when the walk finished (damage or not), the callback's non-zero value when it stopped the walk,
 *  -ENOMEM, or the status error when no slot is usable. */
int columnar_inspect_walk(columnar_inspector *inspector, columnar_inspect_node_fn on_node,
                          columnar_finding_fn on_damage, void *context);

/** One free-list entry: `size_bytes` at `pos`, freed by the commit of `version`. */
typedef struct columnar_free_entry {
    uint64_t pos;
    uint64_t size_bytes;
    uint64_t version;
} columnar_free_entry;

/** Calls `on_entry` for each free-list entry in list order (sorted by position); non-zero stops.
 *  Errors: as columnar_inspect_version_get when no slot is usable; COLUMNAR_ECORRUPT when the top node or the
 *  free-list arrays cannot be read or disagree in length (the message names the offset); the callback's value. */
int columnar_inspect_free_list(columnar_inspector *inspector,
                               int (*on_entry)(void *context, const columnar_free_entry *entry), void *context);

/** How a part of a column (or of a table's structure) is stored: one (role, encoding, width) combination. */
typedef struct columnar_inspect_encoding_use {
    uint8_t role;
    columnar_encoding encoding;
    uint32_t width;
    uint64_t node_count;
    uint64_t size_bytes;
} columnar_inspect_encoding_use;

#define COLUMNAR_INSPECT_MAX_ENCODINGS 24u

/** The space one owner takes: a column of a table, its search index, a table's own structure (column
 *  COLUMNAR_NO_COLUMN: TABLE, META, INDEXES, INNER, CLUSTER and KEYS nodes) or the file's (table
 *  COLUMNAR_NO_TABLE: TOP, META, SCHEMA, TABLES and the free list). */
typedef struct columnar_inspect_usage {
    columnar_table_id table;
    columnar_col_id column;
    bool in_index;
    uint64_t node_count;
    uint64_t size_bytes;          /**< sum of the nodes' size_bytes */
    uint64_t payload_bytes;
    uint64_t plain_bytes;         /**< sum of the nodes' plain_bytes */
    uint64_t value_count;         /**< values in the column's cluster leaves (one per object of the cluster);
                                       for an index, its entries (one per distinct value hash) */
    uint64_t element_count;       /**< elements in its collection leaves (a dictionary's keys and values both);
                                       for an index, the object keys after each entry's first */
    uint32_t encoding_count;
    columnar_inspect_encoding_use encodings[COLUMNAR_INSPECT_MAX_ENCODINGS]; /**< further combinations, if a
                                       damaged file had any, are added to the last entry */
} columnar_inspect_usage;

/** Walks the version (as columnar_inspect_walk, damage to `on_damage`) and then calls `on_usage` once per owner
 *  that has nodes, ordered by table, then column (the table's own structure first), then index after column.
 *  Returns 0, -ENOMEM, the status error when no slot is usable, or the callback's non-zero value. */
int columnar_inspect_usage_get(columnar_inspector *inspector,
                               int (*on_usage)(void *context, const columnar_inspect_usage *usage),
                               columnar_finding_fn on_damage, void *context);

/** One node decoded by ref, with its raw header fields even when they are invalid. */
typedef struct columnar_inspect_node_detail {
    uint64_t ref;
    bool header_present;          /**< the file has the node's 16 header bytes (the fields below are raw) */
    uint32_t stored_checksum;
    uint32_t computed_checksum;   /**< 0 unless the header is valid and the payload inside the file */
    bool checksum_valid;
    uint8_t encoding;
    uint8_t width;
    uint8_t role;
    const char *role_name;        /**< "invalid" for an unknown role */
    uint8_t role_detail;
    uint32_t count;
    int32_t base;                 /**< a PACKED_INT node's frame-of-reference base (added to every stored element) */
    uint64_t payload_bytes;       /**< 0 when encoding and width are invalid */
    uint64_t size_bytes;
    bool inside_used_size;        /**< the node ends inside the inspected version's used size */
    columnar_array array;         /**< the payload (data NULL when the node is invalid) */
    char problem[256];            /**< why the node is invalid, "" when valid */
} columnar_inspect_node_detail;

/** Decodes the node at `ref`, anywhere in the file (so nodes of older versions and in free space can be decoded
 *  too): validated as the engine validates a node, but against the file size rather than a version's used size.
 *  Returns 0 for a valid node (its checksum may still fail: see checksum_valid), COLUMNAR_ECORRUPT with
 *  out->problem for an invalid one (the raw fields are filled when header_present). */
int columnar_inspect_node_decode(columnar_inspector *inspector, uint64_t ref, columnar_inspect_node_detail *out);

/** The CRC-32C the file format uses (node checksums, header sectors, the ranges a commit record lists) of
 *  `size` bytes at `data`. */
uint32_t columnar_inspect_checksum(const void *data, size_t size);

/** Points *out_bytes at `size` bytes of the file at `offset`. Errors: COLUMNAR_ERANGE (outside the file). */
int columnar_inspect_bytes(columnar_inspector *inspector, uint64_t offset, uint64_t size, const uint8_t **out_bytes);

/** Runs columnar_verify's integrity walk on the version being inspected (which need not be one the engine would
 *  open). `on_finding`, *out_findings and the return value are as for columnar_verify; COLUMNAR_ENOTDB/EFORMAT/
 *  ECORRUPT without walking when no slot is usable. Header problems are not reported here (the caller has the
 *  decoded header). */
int columnar_inspect_verify(columnar_inspector *inspector, columnar_finding_fn on_finding, void *context,
                            uint64_t *out_findings);

/** What the lock file beside a database says, read without locking, mapping or writing it. */
typedef struct columnar_lock_file_info {
    bool exists;
    bool valid;                   /**< magic and layout are this build's */
    char problem[160];            /**< why it is not valid, "" otherwise */
    uint32_t layout_version;
    uint32_t reader_slot_count;
    uint64_t data_device;         /**< the data file it serves */
    uint64_t data_inode;
    bool published;               /**< a version was published to readers */
    uint64_t published_version;
    uint64_t published_top_ref;
    uint64_t published_used_size_bytes;
    uint64_t published_file_size_bytes;
    uint64_t written_version;     /**< the latest version written (may be ahead of the durable one) */
    uint64_t durable_version;     /**< every version up to this one is on stable storage */
    uint32_t repair;              /**< what the next writer must do first: 0 nothing, 1 verify and rewrite (a writer
                                       or sync leader died, or the file was just opened), 2 drop the versions above
                                       the durable one (a sync failed) */
    bool storage_failed;          /**< the file refuses writes until every handle closes (COLUMNAR_ESTORAGE) */
    uint32_t reader_count;        /**< slots that pin a version */
} columnar_lock_file_info;

/** One reader slot that pins a version. */
typedef struct columnar_lock_reader {
    uint32_t slot;
    uint32_t handle_slot;         /**< the handle slot of the open handle that owns it */
    uint64_t version;
    bool handle_alive;            /**< that handle still holds its lock (else the slot awaits reclaim) */
} columnar_lock_reader;

/** Reads the lock file of the database at `database_path` ("<real path>.lock"). `on_reader` (may be NULL) is
 *  called per slot that pins a version. A missing lock file is not an error (out->exists false).
 *  Errors: -errno other than -ENOENT from realpath/open/read. */
int columnar_inspect_lock_file(const char *database_path, columnar_lock_file_info *out,
                               void (*on_reader)(void *context, const columnar_lock_reader *reader), void *context);

#ifdef __cplusplus
}
#endif
#endif /* COLUMNAR_H */
