/*
 * object.h — shared helpers of the object-level operations (objects, collections, schema changes): finding a
 * row with the lookup cache, search-index maintenance, backlink maintenance, and value validation.
 */
#ifndef COLUMNAR_OBJECT_H
#define COLUMNAR_OBJECT_H

#include "tree.h"

/* Finds an object's row for reading, or says it is absent (*out_found false, no error). */
int cc_obj_locate(columnar_txn *txn, uint32_t table, int64_t key, cc_tstate **out_ts, cc_rowpos *out_pos,
                  bool *out_found);
/* Finds an object's row for reading. ENOTFOUND (with a message naming table and key) when absent. */
int cc_obj_find(columnar_txn *txn, uint32_t table, int64_t key, cc_tstate **out_ts, cc_rowpos *out_pos);
/* Finds an object's row for writing (its leaf made private); marks the table dirty. */
int cc_obj_find_for_write(columnar_txn *txn, uint32_t table, int64_t key, cc_tstate **out_ts, cc_tnode **out_leaf,
                          uint32_t *out_row);
/* Object keys are below this: the next key, one past the largest, must fit the file's signed 64-bit field. */
#define CC_KEY_LIMIT INT64_MAX
/* The name of a column type, for messages ("int", "string", ...). */
const char *cc_type_name(uint8_t type);
/* Column of a table, checked: live and visible (user columns), with a message naming it otherwise. */
int cc_visible_column(columnar_txn *txn, uint32_t table, uint32_t column, const cc_column **out);
/* cc_visible_column for reading single values, after checking the transaction: refuses collection columns. */
int cc_readable_value_column(columnar_txn *txn, uint32_t table, uint32_t column, const cc_column **out);
/* Checks a value against a column's (or element's) type and nullability; copies its bytes into the arena and
 * fills `cell`. A mixed value's encoding must decode (COLUMNAR_ETYPE otherwise). */
int cc_value_to_cell(columnar_txn *txn, const cc_table_schema *table, const cc_column *column,
                     const columnar_value *value, void *cell, bool *is_null);
/* COLUMNAR_ETYPE (naming the column) unless the non-null MIXED `value` holds an encoding that decodes. */
int cc_mixed_check(const cc_table_schema *table, const cc_column *column, const columnar_value *value);
cc_elemtype cc_column_elemtype(const cc_column *column);
void cc_txn_forget_cache(columnar_txn *txn);

/* Search index of (table, column). */
uint64_t cc_index_hash(uint8_t type, const void *cell, bool is_null);
/* The key under which the index of `column` files a value: order-preserving for ordered indexes, else the hash. */
int64_t cc_index_key(const cc_column *column, const void *cell, bool is_null);
/* The schema flags a newly indexed column of `type` gets: INDEXED, plus ORDERED where the type has ordered keys. */
uint8_t cc_index_flags(uint8_t type);
int cc_index_insert(columnar_txn *txn, uint32_t table, uint32_t column, const void *cell, bool is_null, int64_t key);
int cc_index_remove(columnar_txn *txn, uint32_t table, uint32_t column, const void *cell, bool is_null, int64_t key);
/* First object whose column equals the value, through the index. */
int cc_index_find(columnar_txn *txn, uint32_t table, uint32_t column, const void *cell, bool is_null, int64_t *out_key,
                  bool *found);
/* Builds the index of a column from its current values / drops it. */
int cc_index_build(columnar_txn *txn, uint32_t table, uint32_t column);
int cc_index_drop(columnar_txn *txn, uint32_t table, uint32_t column);
bool cc_type_indexable(uint8_t type);

/* Backlinks: the hidden column of `target_table` recording links from (origin_table, origin_column). */
int cc_backlink_column(const cc_schema *schema, uint32_t target_table, uint32_t origin_table, uint32_t origin_column,
                       uint32_t *out_column);
int cc_backlink_add(columnar_txn *txn, uint32_t origin_table, uint32_t origin_column, int64_t origin_key,
                    int64_t target_key);
int cc_backlink_remove(columnar_txn *txn, uint32_t origin_table, uint32_t origin_column, int64_t origin_key,
                       int64_t target_key);
/* Releases every value of a column in every row (for column and table removal) and marks its vectors removed. */
int cc_column_drop_data(columnar_txn *txn, uint32_t table, uint32_t column);

#endif
