/*
 * inspect.c — the read-only inspector behind columnar-inspect (columnar.h "Inspection").
 *
 * The inspector opens the data file O_RDONLY and maps all of it PROT_READ; it never takes a lock, never registers
 * a reader and never opens the lock file (columnar_inspect_lock_file reads that file with one pread). It decodes
 * the header itself, byte by byte, so that a file the engine refuses (wrong magic, another format version, no whole
 * version, a damaged top node or schema) still shows whatever can be shown.
 *
 * The walk here is deliberately generic: every node carries its role in its header and every REFS node's payload
 * is refs, so following the REFS nodes from the top reaches every node of a version without knowing the schema.
 * Position tells the owner (TABLES child t is table t, CLUSTER child c + 1 is column c, INDEXES child c is the
 * index of column c, and everything below inherits); the schema, when it can be read, only adds words ("list",
 * "backlinks"). Each ref goes through cc_node_view before anything looks inside its node, a bitmap of node starts
 * stops a node from being walked twice, and a depth limit stops ref cycles, so no damage can make the walk read
 * outside the mapping or loop. The logical checks (links against backlinks, indexes against values) are
 * columnar_verify's; columnar_inspect_verify runs it on the inspector's version.
 */
#include "object.h"

#include "checksum.h"
#include "header.h"
#include "mirror.h"
#include "recovery.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Deeper than any tree the engine writes (tables and collections are each at most CF_MAX_TREE_DEPTH deep, and a
 * collection hangs below a table tree), so only a cycle or damage reaches it. */
#define INSPECT_MAX_DEPTH 64u

struct columnar_inspector {
    int fd;
    uint8_t *base;                /* the whole file, mapped read-only (an encrypted file: its decrypted image);
                                     NULL for an empty file */
    uint64_t file_size;           /* of what `base` shows: an encrypted file's logical size */
    uint8_t *file_mapping;        /* the file as mapped */
    uint64_t file_mapping_bytes;
    cc_mirror *mirror;            /* an encrypted file opened with its key */
    columnar_header_info header;
    int status;
    char status_message[1024];
    uint64_t status_offset;
    /* The version being inspected. */
    bool has_version;
    int slot;
    uint64_t version;
    uint64_t top_ref;
    uint64_t used_size;
    /* Its schema, decoded on first use. */
    bool schema_loaded;
    int schema_rc;
    char schema_message[320];
    uint64_t schema_offset;
    uint64_t schema_node_ref;     /* the SCHEMA node when it is a valid node (its bytes may still not decode) */
    cc_schema *schema;
};

static const char *role_name(uint8_t role) {
    static const char *names[] = { "invalid", "TOP", "META", "SCHEMA", "TABLES", "FREE_POS", "FREE_SIZE",
                                   "FREE_VERSION", "TABLE", "INDEXES", "INNER", "CLUSTER", "KEYS", "COLUMN",
                                   "VALUES", "BLOB", "NULLS", "LIST_INNER", "DICT", "COMMIT_RECORD" };
    return role < CF_ROLE_COUNT_ ? names[role] : "invalid";
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Opening and the header                                                                                       */
/* ---------------------------------------------------------------------------------------------------------- */

/* Decodes the identity sector and every slot the way the engine reads them (header.c), and finds the version
 * recovery would open: the whole one of the highest version (recovery.c). */
static void decode_header(columnar_inspector *insp) {
    columnar_header_info *h = &insp->header;
    h->file_size_bytes = insp->file_size;
    uint8_t raw[CF_HEADER_BYTES];
    memset(raw, 0, sizeof raw);
    uint64_t present = insp->file_size < sizeof raw ? insp->file_size : sizeof raw;
    if (present) memcpy(raw, insp->base, present);
    h->header_bytes_present = present;
    cf_identity identity;
    memcpy(&identity, raw, sizeof identity);
    memcpy(h->magic, identity.magic, sizeof h->magic);
    h->magic_valid = present >= CF_MAGIC_BYTES && memcmp(identity.magic, CF_MAGIC, CF_MAGIC_BYTES) == 0;
    h->format_version = identity.format_version;
    h->header_bytes = identity.header_bytes;
    h->sector_bytes = identity.sector_bytes;
    h->slot_count = identity.slot_count;
    memcpy(h->file_id, identity.file_id, sizeof h->file_id);
    h->stored_checksum = identity.checksum;
    h->computed_checksum = cc_crc32c(0, &identity, offsetof(cf_identity, checksum));
    h->encryption = identity.encryption;
    h->identity_checksum_valid = present >= sizeof identity && h->stored_checksum == h->computed_checksum;
    for (uint64_t at = offsetof(cf_identity, reserved); at < offsetof(cf_identity, checksum); at++)
        if (raw[at]) {
            h->reserved_nonzero_at = (uint32_t)at;
            break;
        }
    h->current_slot = -1;
    uint64_t best_version = 0;
    /* An encrypted file opened without its key: nothing past the header can be read, so no version is judged. */
    bool locked = cc_identity_encrypted(&identity) && !insp->mirror;
    for (uint32_t index = 0; index < CF_SLOT_COUNT; index++) {
        const uint8_t *sector = raw + (size_t)CF_SECTOR_BYTES * (1 + index);
        cc_slot_view view;
        cc_slot_decode(sector, index, &identity, insp->file_size, &view);
        columnar_slot_info *info = &h->slots[index];
        info->offset = (uint64_t)CF_SECTOR_BYTES * (1 + index);
        info->version = view.slot.version;
        info->top_ref = view.slot.top_ref;
        info->used_size_bytes = view.slot.used_size;
        info->free_bytes = view.slot.free_bytes;
        info->base_version = view.slot.base_version;
        info->flags = view.slot.flags;
        info->stored_checksum = view.slot.checksum;
        info->computed_checksum = cc_crc32c(0, sector, offsetof(cf_slot, checksum));
        info->checksum_valid = view.checksum_valid && present >= info->offset + CF_SECTOR_BYTES;
        info->is_zero = view.is_zero;
        info->usable = view.usable && present >= info->offset + CF_SECTOR_BYTES;
        snprintf(info->problem, sizeof info->problem, "%s", view.problem);
        if (info->usable && locked) {
            snprintf(info->problem, sizeof info->problem, "cannot be checked without the file's encryption key");
        } else if (info->usable) {
            info->whole = cc_version_verify(insp->base, &view.slot, info->problem, sizeof info->problem) == 0;
            if (info->whole && info->version > best_version) {
                best_version = info->version;
                h->current_slot = (int32_t)index;
            }
        }
        if (!info->is_zero && !h->reserved_nonzero_at) {
            static const uint64_t reserved[2][2] = { { offsetof(cf_slot, reserved0), offsetof(cf_slot, file_id) },
                                                     { offsetof(cf_slot, reserved), offsetof(cf_slot, checksum) } };
            for (int part = 0; part < 2 && !h->reserved_nonzero_at; part++)
                for (uint64_t at = reserved[part][0]; at < reserved[part][1]; at++)
                    if (sector[at]) {
                        h->reserved_nonzero_at = (uint32_t)(info->offset + at);
                        break;
                    }
        }
    }

    /* The status: the first reason the engine would refuse the file, as columnar_open would report it. */
    char problem[200];
    uint64_t offset = 0;
    int rc = cc_identity_check(&identity, present, problem, sizeof problem, &offset);
    if (rc) {
        insp->status = rc;
        insp->status_offset = offset;
        snprintf(insp->status_message, sizeof insp->status_message, "%s", problem);
    } else if (locked) {
        insp->status = COLUMNAR_EKEY;
        insp->status_offset = offsetof(cf_identity, key_check);
        snprintf(insp->status_message, sizeof insp->status_message,
                 "the file is encrypted: give its key to inspect what it holds");
    } else if (h->current_slot < 0) {
        insp->status = COLUMNAR_ECORRUPT;
        insp->status_offset = CF_SECTOR_BYTES;
        size_t used = (size_t)snprintf(insp->status_message, sizeof insp->status_message, "no whole version in the "
                                       "header's %u slots", CF_SLOT_COUNT);
        for (uint32_t index = 0; index < CF_SLOT_COUNT && used < sizeof insp->status_message; index++) {
            const columnar_slot_info *info = &h->slots[index];
            if (info->is_zero) continue;
            used += (size_t)snprintf(insp->status_message + used, sizeof insp->status_message - used,
                                     "; slot %u (version %llu): %s", index, (unsigned long long)info->version,
                                     info->problem);
        }
    }
}

/* Checks the key against an encrypted file's identity and shows the inspector the decrypted image. A file that is
 * not encrypted, or a key that does not match, fails the open with COLUMNAR_EKEY (the file is not inspected). */
static int show_decrypted(columnar_inspector *insp, const char *path, const uint8_t *key) {
    cf_identity identity;
    memset(&identity, 0, sizeof identity);
    if (insp->file_size >= sizeof identity) memcpy(&identity, insp->base, sizeof identity);
    if (!cc_identity_encrypted(&identity))
        return cc_error(COLUMNAR_EKEY, 0, "", "%s is not an encrypted Columnar file, but a key was given", path);
    int rc = cc_mirror_create_for(&identity, key, NULL, path, &insp->mirror);
    if (rc) return rc;
    uint64_t logical = cc_crypt_logical_size(insp->file_size);
    if ((rc = cc_mirror_ensure(insp->mirror, insp->fd, logical))) return rc;
    insp->base = cc_mirror_base(insp->mirror);
    insp->file_size = logical;
    return 0;
}

int columnar_inspector_open(const char *path, columnar_inspector **out_inspector) {
    return columnar_inspector_open_with_key(path, NULL, out_inspector);
}

int columnar_inspector_open_with_key(const char *path, const uint8_t *key, columnar_inspector **out_inspector) {
    *out_inspector = NULL;
    if (!path) return CC_MISUSE("columnar_inspector_open needs a path");
    columnar_inspector *insp = calloc(1, sizeof *insp);
    if (!insp) return -ENOMEM;
    insp->fd = -1;
    insp->slot = -1;
    int rc = 0;
    /* O_NONBLOCK keeps a FIFO from blocking the open; it changes nothing for a regular file. */
    insp->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (insp->fd < 0) {
        rc = cc_error(-errno, 0, "", "cannot open %s: %s", path, strerror(errno));
        goto fail;
    }
    struct stat st;
    if (fstat(insp->fd, &st) != 0) {
        rc = cc_error(-errno, 0, "", "cannot stat %s: %s", path, strerror(errno));
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        rc = cc_error(-EISDIR, 0, "", "%s is a directory", path);
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = cc_error(-EINVAL, 0, "", "%s is not a regular file", path);
        goto fail;
    }
    insp->file_size = (uint64_t)st.st_size;
    if (insp->file_size) {
        void *mapping = mmap(NULL, insp->file_size, PROT_READ, MAP_SHARED, insp->fd, 0);
        if (mapping == MAP_FAILED) {
            rc = cc_error(-errno, 0, "", "cannot map %s: %s", path, strerror(errno));
            goto fail;
        }
        insp->base = mapping;
        insp->file_mapping = mapping;
        insp->file_mapping_bytes = insp->file_size;
    }
    if (key && (rc = show_decrypted(insp, path, key))) goto fail;
    decode_header(insp);
    insp->header.file_size_bytes = insp->file_mapping_bytes;
    if (insp->header.current_slot >= 0) columnar_inspector_select_slot(insp, insp->header.current_slot);
    *out_inspector = insp;
    return 0;
fail:
    columnar_inspector_close(insp);
    return rc;
}

void columnar_inspector_close(columnar_inspector *insp) {
    if (!insp) return;
    if (insp->file_mapping) munmap(insp->file_mapping, insp->file_mapping_bytes);
    cc_mirror_destroy(insp->mirror);
    if (insp->fd >= 0) close(insp->fd);
    if (insp->schema) cc_schema_release(insp->schema);
    free(insp);
}

const columnar_header_info *columnar_inspector_header(const columnar_inspector *insp) { return &insp->header; }

int columnar_inspector_status(const columnar_inspector *insp, const char **out_message, uint64_t *out_offset) {
    if (out_message) *out_message = insp->status_message;
    if (out_offset) *out_offset = insp->status_offset;
    return insp->status;
}

uint32_t columnar_inspect_checksum(const void *data, size_t size) { return cc_crc32c(0, data, size); }

int columnar_inspector_select_slot(columnar_inspector *insp, int slot) {
    if (slot < 0 || slot >= (int)CF_SLOT_COUNT)
        return CC_MISUSE("header slot %d does not exist (0 ... %u)", slot, CF_SLOT_COUNT - 1);
    const columnar_slot_info *info = &insp->header.slots[slot];
    if (!info->usable)
        return CC_CORRUPT(info->offset, "header slot %d (offset %llu) is not usable: %s", slot,
                          (unsigned long long)info->offset, info->problem[0] ? info->problem : "it is empty");
    insp->has_version = true;
    insp->slot = slot;
    insp->version = info->version;
    insp->top_ref = info->top_ref;
    insp->used_size = info->used_size_bytes;
    if (insp->schema) cc_schema_release(insp->schema);
    insp->schema = NULL;
    insp->schema_loaded = false;
    insp->schema_node_ref = 0;
    return 0;
}

/* Returns 0 when a version is selected, else the status code with its message recorded as the last error. */
static int need_version(const columnar_inspector *insp) {
    if (insp->has_version) return 0;
    int code = insp->status ? insp->status : COLUMNAR_ECORRUPT;
    return cc_error(code, insp->status_offset, "", "%s", insp->status_message[0] ? insp->status_message
                                                                                : "no version is selected");
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The top node, the schema, tables                                                                             */
/* ---------------------------------------------------------------------------------------------------------- */

static int view(const columnar_inspector *insp, uint64_t ref, uint8_t role, cc_node *out) {
    return cc_node_view(insp->base, insp->used_size, ref, role, false, out);
}

/* Child `index` of a REFS node, validated, with the expected role. */
static int view_child(const columnar_inspector *insp, const cc_node *parent, uint32_t index, uint8_t role,
                      cc_node *out) {
    if (parent->encoding != COLUMNAR_ENCODING_REFS || index >= parent->count)
        return CC_CORRUPT(parent->ref, "node at %llu (%s) has no child %u", (unsigned long long)parent->ref,
                          role_name(parent->role), index);
    uint64_t ref = cc_node_ref_at(parent, index);
    if (!ref)
        return CC_CORRUPT(parent->ref, "node at %llu (%s) has a null ref in slot %u", (unsigned long long)parent->ref,
                          role_name(parent->role), index);
    return view(insp, ref, role, out);
}

static int view_top(const columnar_inspector *insp, cc_node *top) {
    int rc = need_version(insp);
    if (rc) return rc;
    if ((rc = view(insp, insp->top_ref, CF_ROLE_TOP, top))) return rc;
    if (top->encoding != COLUMNAR_ENCODING_REFS || top->count != CF_TOP_CHILDREN)
        return CC_CORRUPT(top->ref, "top node at %llu has %u children of encoding %u, not %u refs",
                          (unsigned long long)top->ref, top->count, top->encoding, CF_TOP_CHILDREN);
    return 0;
}

static int load_schema(columnar_inspector *insp) {
    if (insp->schema_loaded) {
        if (insp->schema_rc)
            return cc_error(insp->schema_rc, insp->schema_offset, "", "%s", insp->schema_message);
        return 0;
    }
    cc_node top, node;
    int rc = view_top(insp, &top);
    if (!rc) rc = view_child(insp, &top, CF_TOP_SCHEMA, CF_ROLE_SCHEMA, &node);
    if (!rc) insp->schema_node_ref = node.ref;
    if (!rc && node.encoding != COLUMNAR_ENCODING_BYTES)
        rc = CC_CORRUPT(node.ref, "schema node at %llu has encoding %u, not bytes", (unsigned long long)node.ref,
                        node.encoding);
    if (!rc) rc = cc_schema_decode(node.payload, node.payload_bytes, node.ref, &insp->schema);
    if (rc == -ENOMEM) return rc;
    insp->schema_loaded = true;
    insp->schema_rc = rc;
    if (rc) {
        insp->schema = NULL;
        insp->schema_offset = columnar_last_error()->ref;
        snprintf(insp->schema_message, sizeof insp->schema_message, "%s", columnar_last_error()->message);
    }
    return rc;
}

int columnar_inspect_table_count(columnar_inspector *insp, uint32_t *out_count) {
    *out_count = 0;
    int rc = load_schema(insp);
    if (rc) return rc;
    *out_count = insp->schema->table_count;
    return 0;
}

int columnar_inspect_table_get(columnar_inspector *insp, columnar_table_id table, columnar_inspect_table *out) {
    memset(out, 0, sizeof *out);
    int rc = load_schema(insp);
    if (rc) return rc;
    if (table >= insp->schema->table_count)
        return CC_FAIL(COLUMNAR_ENOTFOUND, "no table %u (the schema has %u)", table, insp->schema->table_count);
    const cc_table_schema *schema = &insp->schema->tables[table];
    snprintf(out->name, sizeof out->name, "%s", schema->name);
    out->removed = (schema->flags & CF_TABLE_FLAG_REMOVED) != 0;
    out->primary_key = schema->primary_key;
    out->column_count = schema->column_count;
    out->object_count = -1;
    out->next_key = -1;
    cc_node top, tables, node, meta;
    if (view_top(insp, &top) || view_child(insp, &top, CF_TOP_TABLES, CF_ROLE_TABLES, &tables) ||
        tables.encoding != COLUMNAR_ENCODING_REFS || table >= tables.count)
        return 0;
    out->table_ref = cc_node_ref_at(&tables, table);
    if (!out->table_ref || view(insp, out->table_ref, CF_ROLE_TABLE, &node) ||
        view_child(insp, &node, CF_TABLE_META, CF_ROLE_META, &meta) ||
        meta.encoding != COLUMNAR_ENCODING_PACKED_INT || meta.count < CF_TABLE_META_COUNT)
        return 0;
    out->object_count = cc_node_int_at(&meta, CF_TABLE_META_OBJECT_COUNT);
    out->next_key = cc_node_int_at(&meta, CF_TABLE_META_NEXT_KEY);
    out->keys_are_primary_keys = cc_keyed_by_names_int_primary_key(schema, cc_table_meta_keyed_by(&meta));
    return 0;
}

int columnar_inspect_column_get(columnar_inspector *insp, columnar_table_id table, columnar_col_id column,
                                columnar_inspect_column *out) {
    memset(out, 0, sizeof *out);
    int rc = load_schema(insp);
    if (rc) return rc;
    if (table >= insp->schema->table_count)
        return CC_FAIL(COLUMNAR_ENOTFOUND, "no table %u (the schema has %u)", table, insp->schema->table_count);
    const cc_table_schema *schema = &insp->schema->tables[table];
    if (column >= schema->column_count)
        return CC_FAIL(COLUMNAR_ENOTFOUND, "table %s has no column %u (it has %u)", schema->name, column,
                       schema->column_count);
    const cc_column *col = &schema->columns[column];
    snprintf(out->name, sizeof out->name, "%s", col->name);
    out->type = (columnar_type)col->type;
    out->collection = (columnar_collection_kind)col->collection;
    out->nullable = (col->flags & CF_COL_FLAG_NULLABLE) != 0;
    out->indexed = (col->flags & CF_COL_FLAG_INDEXED) != 0;
    out->is_backlink = (col->flags & CF_COL_FLAG_BACKLINK) != 0;
    out->removed = (col->flags & CF_COL_FLAG_REMOVED) != 0;
    out->is_primary_key = schema->primary_key == column;
    out->target_table = col->target_table;
    out->origin_table = col->origin_table;
    out->origin_column = col->origin_column;
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The free list and the version                                                                                */
/* ---------------------------------------------------------------------------------------------------------- */

static int read_free_arrays(const columnar_inspector *insp, cc_node arrays[3]) {
    static const uint8_t roles[3] = { CF_ROLE_FREE_POS, CF_ROLE_FREE_SIZE, CF_ROLE_FREE_VERSION };
    cc_node top;
    int rc = view_top(insp, &top);
    if (rc) return rc;
    for (int a = 0; a < 3; a++) {
        if ((rc = view_child(insp, &top, CF_TOP_FREE_POS + (uint32_t)a, roles[a], &arrays[a]))) return rc;
        if (arrays[a].encoding != COLUMNAR_ENCODING_PACKED_INT)
            return CC_CORRUPT(arrays[a].ref, "free-list array at %llu (%s) has encoding %u, not packed int",
                              (unsigned long long)arrays[a].ref, role_name(roles[a]), arrays[a].encoding);
    }
    if (arrays[1].count != arrays[0].count || arrays[2].count != arrays[0].count)
        return CC_CORRUPT(arrays[0].ref, "free list at %llu has %u positions, %u sizes and %u versions",
                          (unsigned long long)arrays[0].ref, arrays[0].count, arrays[1].count, arrays[2].count);
    return 0;
}

int columnar_inspect_free_list(columnar_inspector *insp,
                               int (*on_entry)(void *context, const columnar_free_entry *entry), void *context) {
    cc_node arrays[3];
    int rc = read_free_arrays(insp, arrays);
    if (rc) return rc;
    for (uint32_t i = 0; i < arrays[0].count; i++) {
        columnar_free_entry entry = { (uint64_t)cc_node_int_at(&arrays[0], i), (uint64_t)cc_node_int_at(&arrays[1], i),
                                      (uint64_t)cc_node_int_at(&arrays[2], i) };
        if ((rc = on_entry(context, &entry))) return rc;
    }
    return 0;
}

int columnar_inspect_version_get(columnar_inspector *insp, columnar_inspect_version *out) {
    memset(out, 0, sizeof *out);
    out->slot = -1;
    out->file_size_bytes = insp->file_size;
    int rc = need_version(insp);
    if (rc) return rc;
    out->slot = insp->slot;
    out->version = insp->version;
    out->top_ref = insp->top_ref;
    out->used_size_bytes = insp->used_size;
    int first_rc = 0;
    cc_node top, meta;
    rc = view_top(insp, &top);
    if (!rc) rc = view_child(insp, &top, CF_TOP_META, CF_ROLE_META, &meta);
    if (!rc && (meta.encoding != COLUMNAR_ENCODING_PACKED_INT || meta.count < CF_TOP_META_COUNT))
        rc = CC_CORRUPT(meta.ref, "top meta at %llu has %u elements of encoding %u", (unsigned long long)meta.ref,
                        meta.count, meta.encoding);
    if (!rc) {
        out->meta_version = (uint64_t)cc_node_int_at(&meta, CF_TOP_META_VERSION);
        int64_t cluster_size = cc_node_int_at(&meta, CF_TOP_META_CLUSTER_SIZE);
        out->cluster_size = cluster_size > 0 && cluster_size <= UINT32_MAX ? (uint32_t)cluster_size : 0;
    }
    first_rc = rc;
    cc_node arrays[3];
    rc = read_free_arrays(insp, arrays);
    if (!rc) {
        out->free_entry_count = arrays[1].count;
        for (uint32_t i = 0; i < arrays[1].count; i++) out->free_bytes += (uint64_t)cc_node_int_at(&arrays[1], i);
    }
    if (!first_rc) first_rc = rc;
    rc = load_schema(insp);
    if (rc == -ENOMEM) return rc;
    if (!rc) out->table_count = insp->schema->table_count;
    if (!first_rc) first_rc = rc;
    return first_rc;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The walk                                                                                                     */
/* ---------------------------------------------------------------------------------------------------------- */

/* Where in the structure a node was reached: its owner and whether it lies inside a collection. */
typedef struct place {
    uint32_t table;
    uint32_t column;
    bool in_index;
    bool in_collection;
    const char *collection_word;  /* "list", "set", "dictionary", "backlinks" or "collection" */
} place;

typedef struct walker {
    const columnar_inspector *insp;
    const uint8_t *base;
    uint64_t limit;
    uint64_t *reached;            /* one bit per 8 bytes of the used size: a node starting there was reported */
    columnar_inspect_node_fn on_node;
    columnar_finding_fn on_damage;
    void *context;
    int stop;
} walker;

__attribute__((format(printf, 3, 4)))
static void damage(walker *w, uint64_t ref, const char *format, ...) {
    if (!w->on_damage) return;
    char what[512];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    w->on_damage(w->context, ref, what);
}

static const char *collection_word(const columnar_inspector *insp, uint32_t table, uint32_t column) {
    const cc_schema *schema = insp->schema;
    if (!schema || table >= schema->table_count || column >= schema->tables[table].column_count) return "collection";
    const cc_column *col = &schema->tables[table].columns[column];
    if (col->flags & CF_COL_FLAG_BACKLINK) return "backlinks";
    switch (col->collection) {
    case COLUMNAR_COLLECTION_LIST: return "list";
    case COLUMNAR_COLLECTION_SET: return "set";
    case COLUMNAR_COLLECTION_DICT: return "dictionary";
    default: return "collection";
    }
}

static const char *node_what(const cc_node *node, uint8_t parent_role, const place *p) {
    if (p->in_index) return "index";
    if (p->in_collection) return p->collection_word;
    switch (node->role) {
    case CF_ROLE_TOP: return "top";
    case CF_ROLE_META:
        return parent_role == CF_ROLE_TOP ? "version meta" : parent_role == CF_ROLE_TABLE ? "table meta" : "meta";
    case CF_ROLE_SCHEMA: return "schema";
    case CF_ROLE_TABLES: return "table list";
    case CF_ROLE_FREE_POS: case CF_ROLE_FREE_SIZE: case CF_ROLE_FREE_VERSION: return "free list";
    case CF_ROLE_COMMIT_RECORD: return "commit record";
    case CF_ROLE_TABLE: return "table";
    case CF_ROLE_INDEXES: return "index list";
    case CF_ROLE_INNER: return "tree inner node";
    case CF_ROLE_CLUSTER: return "cluster";
    case CF_ROLE_KEYS: return parent_role == CF_ROLE_INNER ? "inner keys" : "cluster keys";
    case CF_ROLE_COLUMN: return "column leaf";
    case CF_ROLE_VALUES: return "values";
    case CF_ROLE_BLOB: return "string blob";
    case CF_ROLE_NULLS: return "null bitmap";
    default: return "collection";
    }
}

/* The payload in a plain fixed-width layout (columnar.h, columnar_inspect_node.plain_bytes). */
static uint64_t plain_bytes(const cc_node *node, uint8_t parent_role, uint32_t position) {
    uint64_t count = node->count;
    switch (node->encoding) {
    case COLUMNAR_ENCODING_PACKED_INT:
        if (node->role == CF_ROLE_NULLS) return count;
        if (node->role == CF_ROLE_VALUES && node->role_detail == COLUMNAR_TYPE_BOOL) return count;
        if (node->role == CF_ROLE_VALUES && node->role_detail == COLUMNAR_TYPE_TIMESTAMP &&
            parent_role == CF_ROLE_COLUMN && position == 1)
            return count * 4;
        return count * 8;
    case COLUMNAR_ENCODING_FLOAT: return count * 4;
    case COLUMNAR_ENCODING_BYTES: return count;
    case COLUMNAR_ENCODING_FIXED: return count * node->width;
    case COLUMNAR_ENCODING_SHORT_STRINGS: {
        /* The strings' bytes plus an 8-byte end offset each, as a long-string leaf of 64-bit offsets holds them. */
        uint64_t total = 0;
        for (uint64_t i = 0; i < count; i++) {
            uint32_t unused = node->payload[(i + 1) * node->width - 1];
            total += 8 + (unused < node->width ? node->width - 1u - unused : 0);
        }
        return total;
    }
    default: return count * 8;   /* refs and doubles */
    }
}

/* The place of child `index` of `node`, which was reached at `p`. */
static place child_place(const walker *w, const cc_node *node, uint32_t index, const place *p) {
    place c = *p;
    switch (node->role) {
    case CF_ROLE_TABLES:
        c.table = index;
        c.column = COLUMNAR_NO_COLUMN;
        break;
    case CF_ROLE_INDEXES:
        c.column = index;
        c.in_index = true;
        break;
    case CF_ROLE_CLUSTER:
        if (!p->in_index && p->table != COLUMNAR_NO_TABLE) c.column = index == 0 ? COLUMNAR_NO_COLUMN : index - 1;
        break;
    case CF_ROLE_VALUES:
        /* The values of a collection column are refs to collection roots, one per row; in a search index, the
         * lists of further object keys of each entry. */
        if (node->encoding == COLUMNAR_ENCODING_REFS && !p->in_collection && p->column != COLUMNAR_NO_COLUMN) {
            c.in_collection = true;
            c.collection_word = p->in_index ? "index" : collection_word(w->insp, p->table, p->column);
        }
        break;
    default: break;
    }
    return c;
}

static void visit(walker *w, uint64_t ref, const cc_node *parent, uint32_t position, const place *p,
                  uint32_t depth) {
    uint64_t parent_ref = parent ? parent->ref : 0;
    if (depth > INSPECT_MAX_DEPTH) {
        damage(w, ref, "node at %llu (slot %u of the node at %llu) is deeper than %u levels: a ref cycle?",
               (unsigned long long)ref, position, (unsigned long long)parent_ref, INSPECT_MAX_DEPTH);
        return;
    }
    cc_node node;
    if (cc_node_view(w->base, w->limit, ref, 0, false, &node) != 0) {
        if (parent)
            damage(w, ref, "%s (the ref is in slot %u of the node at %llu)", columnar_last_error()->message, position,
                   (unsigned long long)parent_ref);
        else
            damage(w, ref, "%s (the top ref of header slot %d)", columnar_last_error()->message, w->insp->slot);
        return;
    }
    uint64_t bit = ref / 8, mask = 1ull << (bit & 63);
    if (w->reached[bit >> 6] & mask) {
        damage(w, ref, "node at %llu (%s) is reached a second time, from slot %u of the node at %llu; nodes may not "
               "be shared", (unsigned long long)ref, role_name(node.role), position, (unsigned long long)parent_ref);
        return;
    }
    w->reached[bit >> 6] |= mask;
    uint32_t crc = cc_crc32c(0, w->base + ref + 4, CF_NODE_HEADER_BYTES - 4 + node.payload_bytes);
    uint32_t stored;
    memcpy(&stored, w->base + ref, sizeof stored);
    if (crc != stored)
        damage(w, ref, "node at %llu (%s) fails its checksum (stored %08x, computed %08x)", (unsigned long long)ref,
               role_name(node.role), stored, crc);
    uint8_t parent_role = parent ? parent->role : 0;
    columnar_inspect_node info = {
        .ref = ref,
        .size_bytes = cc_node_span(node.payload_bytes),
        .payload_bytes = node.payload_bytes,
        .plain_bytes = plain_bytes(&node, parent_role, position),
        .parent_ref = parent_ref,
        .parent_role = parent_role,
        .position = position,
        .depth = depth,
        .role = node.role,
        .role_name = role_name(node.role),
        .role_detail = node.role_detail,
        .encoding = (columnar_encoding)node.encoding,
        .width = node.width,
        .count = node.count,
        .checksum_valid = crc == stored,
        .table = p->table,
        .column = p->column,
        .in_index = p->in_index,
        .in_collection = p->in_collection,
        .what = node_what(&node, parent_role, p),
    };
    int rc = w->on_node(w->context, &info);
    if (rc) {
        w->stop = rc;
        return;
    }
    if (node.encoding != COLUMNAR_ENCODING_REFS) return;
    for (uint32_t i = 0; i < node.count && !w->stop; i++) {
        uint64_t child = cc_node_ref_at(&node, i);
        if (!child) continue;
        place c = child_place(w, &node, i, p);
        visit(w, child, &node, i, &c, depth + 1);
    }
}

int columnar_inspect_walk(columnar_inspector *insp, columnar_inspect_node_fn on_node, columnar_finding_fn on_damage,
                          void *context) {
    int rc = need_version(insp);
    if (rc) return rc;
    /* The schema only adds words to the walk's output; a damaged one is the walk's to report (below, when the
     * SCHEMA node is reached), not a reason to stop. */
    if (load_schema(insp) == -ENOMEM) return -ENOMEM;
    walker w = { .insp = insp, .base = insp->base, .limit = insp->used_size, .on_node = on_node,
                 .on_damage = on_damage, .context = context };
    w.reached = calloc((size_t)(insp->used_size / 8 / 64 + 1), sizeof *w.reached);
    if (!w.reached) return -ENOMEM;
    place top = { .table = COLUMNAR_NO_TABLE, .column = COLUMNAR_NO_COLUMN };
    visit(&w, insp->top_ref, NULL, 0, &top, 0);
    /* A SCHEMA node that is a valid node but whose bytes do not decode is damage the walk itself cannot see; an
     * unreadable top node or SCHEMA node was reported when the walk reached it. */
    if (insp->schema_rc && insp->schema_node_ref && on_damage && !w.stop)
        on_damage(context, insp->schema_offset, insp->schema_message);
    free(w.reached);
    return w.stop;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Usage per owner                                                                                              */
/* ---------------------------------------------------------------------------------------------------------- */

typedef struct usage_table {
    columnar_inspect_usage *items;
    size_t count;
    size_t capacity;              /* a power of two; open addressing */
    int error;
    columnar_finding_fn on_damage;   /* the caller's, with the caller's context */
    void *context;
} usage_table;

/* The walk's damage goes to the caller with the caller's context, not the usage table. */
static void usage_damage(void *context, uint64_t ref, const char *what) {
    usage_table *u = context;
    if (u->on_damage) u->on_damage(u->context, ref, what);
}

static uint64_t usage_hash(uint32_t table, uint32_t column, bool in_index) {
    uint64_t h = ((uint64_t)table << 33) ^ ((uint64_t)column << 1) ^ (uint64_t)in_index;
    h ^= h >> 31;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static columnar_inspect_usage *usage_slot(usage_table *u, uint32_t table, uint32_t column, bool in_index) {
    if ((u->count + 1) * 2 > u->capacity) {
        size_t capacity = u->capacity ? u->capacity * 2 : 64;
        columnar_inspect_usage *grown = calloc(capacity, sizeof *grown);
        if (!grown) {
            u->error = -ENOMEM;
            return NULL;
        }
        for (size_t i = 0; i < u->capacity; i++) {
            const columnar_inspect_usage *item = &u->items[i];
            if (!item->node_count) continue;
            size_t at = usage_hash(item->table, item->column, item->in_index) & (capacity - 1);
            while (grown[at].node_count) at = (at + 1) & (capacity - 1);
            grown[at] = *item;
        }
        free(u->items);
        u->items = grown;
        u->capacity = capacity;
    }
    size_t at = usage_hash(table, column, in_index) & (u->capacity - 1);
    for (;; at = (at + 1) & (u->capacity - 1)) {
        columnar_inspect_usage *item = &u->items[at];
        if (!item->node_count) {
            item->table = table;
            item->column = column;
            item->in_index = in_index;
            u->count++;
            return item;
        }
        if (item->table == table && item->column == column && item->in_index == in_index) return item;
    }
}

static int usage_add(void *context, const columnar_inspect_node *node) {
    usage_table *u = context;
    columnar_inspect_usage *item = usage_slot(u, node->table, node->column, node->in_index);
    if (!item) return u->error;
    item->node_count++;
    item->size_bytes += node->size_bytes;
    item->payload_bytes += node->payload_bytes;
    item->plain_bytes += node->plain_bytes;
    if (node->role == CF_ROLE_VALUES && node->parent_role == CF_ROLE_COLUMN && node->position == 0) {
        /* An index cluster holds each entry's first key and a ref to its list of further keys: the entry counts
         * once, by its first key. */
        if (node->in_collection) item->element_count += node->count;
        else if (!node->in_index || node->encoding != COLUMNAR_ENCODING_REFS) item->value_count += node->count;
    }
    uint32_t e = 0;
    for (; e < item->encoding_count; e++) {
        const columnar_inspect_encoding_use *use = &item->encodings[e];
        if (use->role == node->role && use->encoding == node->encoding && use->width == node->width) break;
    }
    if (e == item->encoding_count) {
        if (item->encoding_count < COLUMNAR_INSPECT_MAX_ENCODINGS) {
            item->encoding_count++;
            item->encodings[e] = (columnar_inspect_encoding_use){ node->role, node->encoding, node->width, 0, 0 };
        } else {
            e = COLUMNAR_INSPECT_MAX_ENCODINGS - 1;
        }
    }
    item->encodings[e].node_count++;
    item->encodings[e].size_bytes += node->size_bytes;
    return 0;
}

static int compare_usage(const void *a, const void *b) {
    const columnar_inspect_usage *x = a, *y = b;
    /* File structure first, then by table; a table's own structure before its columns; a column before its index. */
    int64_t xt = x->table == COLUMNAR_NO_TABLE ? -1 : (int64_t)x->table;
    int64_t yt = y->table == COLUMNAR_NO_TABLE ? -1 : (int64_t)y->table;
    if (xt != yt) return xt < yt ? -1 : 1;
    int64_t xc = x->column == COLUMNAR_NO_COLUMN ? -1 : (int64_t)x->column;
    int64_t yc = y->column == COLUMNAR_NO_COLUMN ? -1 : (int64_t)y->column;
    if (xc != yc) return xc < yc ? -1 : 1;
    return (int)x->in_index - (int)y->in_index;
}

int columnar_inspect_usage_get(columnar_inspector *insp,
                               int (*on_usage)(void *context, const columnar_inspect_usage *usage),
                               columnar_finding_fn on_damage, void *context) {
    usage_table u = { .on_damage = on_damage, .context = context };
    int rc = columnar_inspect_walk(insp, usage_add, usage_damage, &u);
    if (!rc && u.error) rc = u.error;
    if (!rc && u.count) {
        size_t kept = 0;
        for (size_t i = 0; i < u.capacity; i++)
            if (u.items[i].node_count) u.items[kept++] = u.items[i];
        qsort(u.items, kept, sizeof *u.items, compare_usage);
        for (size_t i = 0; i < kept && !rc; i++) rc = on_usage(context, &u.items[i]);
    }
    free(u.items);
    return rc;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* One node, raw bytes                                                                                          */
/* ---------------------------------------------------------------------------------------------------------- */

int columnar_inspect_node_decode(columnar_inspector *insp, uint64_t ref, columnar_inspect_node_detail *out) {
    memset(out, 0, sizeof *out);
    out->ref = ref;
    out->role_name = "invalid";
    if (ref > insp->file_size || insp->file_size - ref < CF_NODE_HEADER_BYTES) {
        snprintf(out->problem, sizeof out->problem, "the file (%llu bytes) has no 16-byte node header at %llu",
                 (unsigned long long)insp->file_size, (unsigned long long)ref);
        return CC_CORRUPT(ref, "%s", out->problem);
    }
    cf_node_header header;
    memcpy(&header, insp->base + ref, sizeof header);
    out->header_present = true;
    out->stored_checksum = header.checksum;
    out->encoding = header.encoding;
    out->width = header.width;
    out->role = header.role;
    out->role_name = role_name(header.role);
    out->role_detail = header.role_detail;
    out->count = header.count;
    out->base = header.base;
    uint64_t payload = cc_payload_bytes(header.encoding, header.width, header.count);
    out->payload_bytes = payload == UINT64_MAX ? 0 : payload;
    out->size_bytes = cc_node_span(out->payload_bytes);
    cc_node node;
    if (cc_node_view(insp->base, insp->file_size, ref, 0, false, &node) != 0) {
        snprintf(out->problem, sizeof out->problem, "%s", columnar_last_error()->message);
        return COLUMNAR_ECORRUPT;
    }
    out->computed_checksum = cc_crc32c(0, insp->base + ref + 4, CF_NODE_HEADER_BYTES - 4 + node.payload_bytes);
    out->checksum_valid = out->computed_checksum == out->stored_checksum;
    out->inside_used_size = insp->has_version && ref + CF_NODE_HEADER_BYTES + node.payload_bytes <= insp->used_size;
    out->array = (columnar_array){ (columnar_encoding)node.encoding, node.width, node.count, node.payload, node.base };
    return 0;
}

int columnar_inspect_bytes(columnar_inspector *insp, uint64_t offset, uint64_t size, const uint8_t **out_bytes) {
    *out_bytes = NULL;
    if (offset > insp->file_size || insp->file_size - offset < size)
        return cc_error(COLUMNAR_ERANGE, offset, "", "bytes %llu ..< %llu are outside the file (%llu bytes)",
                        (unsigned long long)offset, (unsigned long long)(offset + size),
                        (unsigned long long)insp->file_size);
    *out_bytes = insp->base ? insp->base + offset : (const uint8_t *)"";
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The integrity walk on the inspector's version                                                                */
/* ---------------------------------------------------------------------------------------------------------- */

int columnar_inspect_verify(columnar_inspector *insp, columnar_finding_fn on_finding, void *context,
                            uint64_t *out_findings) {
    if (out_findings) *out_findings = 0;
    int rc = need_version(insp);
    if (rc) return rc;
    /* columnar_verify reads, of its transaction, only the version, top ref and used size, whether it is poisoned,
     * and its database's mapping base (verify.c reads every node through cc_node_view on that base). A detached
     * read transaction over the inspector's own mapping therefore lets the same walk check a version that
     * columnar_open would refuse, without a lock file and without pinning anything. It is never passed to any
     * other function. */
    columnar_db db;
    memset(&db, 0, sizeof db);
    db.fd = -1;
    db.flags = COLUMNAR_OPEN_READ_ONLY | COLUMNAR_OPEN_NO_LOCK;
    db.map.base = insp->base;
    db.map.mirror = insp->mirror;   /* for the list of sectors that fail authentication; never destroyed here */
    db.map.reserved_bytes = insp->file_size;
    atomic_store(&db.map.mapped_bytes, insp->file_size);
    /* The file's format version says whether its nodes may carry bases (verify refuses one in a version 2 or 3
     * file). */
    db.node_bases = cc_format_has_node_bases(insp->header.format_version);
    columnar_txn txn;
    memset(&txn, 0, sizeof txn);
    txn.db = &db;
    txn.version = insp->version;
    txn.top_ref = insp->top_ref;
    txn.used_size = insp->used_size;
    txn.file_size = insp->file_size;
    return columnar_verify(&txn, on_finding, context, out_findings);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* The lock file                                                                                                */
/* ---------------------------------------------------------------------------------------------------------- */

typedef struct reader_relay {
    void (*on_reader)(void *context, const columnar_lock_reader *reader);
    void *context;
    uint32_t count;
} reader_relay;

static void relay_reader(void *context, uint32_t slot, uint32_t handle_slot, bool handle_alive, uint64_t version) {
    reader_relay *relay = context;
    relay->count++;
    if (!relay->on_reader) return;
    columnar_lock_reader reader = { slot, handle_slot, version, handle_alive };
    relay->on_reader(relay->context, &reader);
}

int columnar_inspect_lock_file(const char *database_path, columnar_lock_file_info *out,
                               void (*on_reader)(void *context, const columnar_lock_reader *reader), void *context) {
    memset(out, 0, sizeof *out);
    if (!database_path) return CC_MISUSE("columnar_inspect_lock_file needs a path");
    /* The engine names the lock file after the real path, so a symlink to the file finds it too. */
    char *real = realpath(database_path, NULL);
    if (!real) {
        if (errno == ENOENT) return 0;
        return cc_error(-errno, 0, "", "cannot resolve %s: %s", database_path, strerror(errno));
    }
    size_t length = strlen(real) + sizeof ".lock";
    char *path = malloc(length);
    if (!path) {
        free(real);
        return -ENOMEM;
    }
    snprintf(path, length, "%s.lock", real);
    free(real);
    cc_lock_file_state state;
    reader_relay relay = { on_reader, context, 0 };
    int rc = cc_lock_file_read(path, &state, relay_reader, &relay);
    free(path);
    if (rc == -ENOENT) return 0;
    if (rc) return cc_error(rc, 0, "", "cannot read the lock file of %s: %s", database_path, strerror(-rc));
    out->exists = true;
    out->valid = state.valid;
    snprintf(out->problem, sizeof out->problem, "%s", state.problem);
    out->layout_version = state.layout_version;
    out->reader_slot_count = state.reader_slot_count;
    out->data_device = state.data_device;
    out->data_inode = state.data_inode;
    out->published = state.published;
    out->published_version = state.state.version;
    out->published_top_ref = state.state.top_ref;
    out->published_used_size_bytes = state.state.used_size;
    out->published_file_size_bytes = state.state.file_size;
    out->written_version = state.written_version;
    out->durable_version = state.durable_version;
    out->repair = state.repair;
    out->storage_failed = state.storage_failed;
    out->reader_count = relay.count;
    return 0;
}
