/*
 * kernels_string.c — matching STRING and BINARY columns against a needle: equality, prefix, suffix, substring,
 * LIKE patterns and bytewise order, optionally ignoring ASCII letter case.
 *
 * A cluster's strings come in one of two forms (format.h): short strings in fixed slots whose last byte is the
 * unused length, or end offsets into a blob. Rows are produced as (pointer, size) pairs a block at a time
 * (cc_view_bytes_block, the offsets decoded with cc_unpack_ints) and every row's bounds are checked before its
 * bytes are read, so a damaged leaf gives COLUMNAR_ECORRUPT, never a read outside the node. Mixed views have the
 * same arrays (their rows are encodings), and the mixed kernels (kernels_mixed.c) read them through the same
 * block function and match the strings inside them with the same matcher.
 *
 * Case folding here is ASCII only. Full Unicode case folding can make a non-ASCII character equal to an ASCII
 * one (the Kelvin sign folds to "k"), so with COLUMNAR_STRING_FOLD_ASCII_CASE a row that is not all ASCII, or
 * every row when the needle is not, gets the undecided value 2, and the caller settles those rows itself.
 */
#include "kernels.h"

#include "node.h"

static const uint8_t empty_bytes[1] = { 0 };

static inline uint8_t fold_ascii(uint8_t byte) {
    return (uint8_t)(byte >= 'A' && byte <= 'Z' ? byte | 0x20 : byte);
}

static bool is_ascii(const uint8_t *bytes, size_t size) {
    uint8_t high = 0;
    for (size_t i = 0; i < size; i++) high |= bytes[i];
    return (high & 0x80) == 0;
}

static bool equal_bytes(const uint8_t *a, const uint8_t *b, size_t size, bool fold) {
    if (!fold) return size == 0 || memcmp(a, b, size) == 0;
    for (size_t i = 0; i < size; i++)
        if (fold_ascii(a[i]) != fold_ascii(b[i])) return false;
    return true;
}

/* Bytewise order, a proper prefix first. */
static int order_bytes(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size, bool fold) {
    size_t common = a_size < b_size ? a_size : b_size;
    if (!fold) {
        int c = common ? memcmp(a, b, common) : 0;
        if (c) return c < 0 ? -1 : 1;
    } else {
        for (size_t i = 0; i < common; i++) {
            uint8_t x = fold_ascii(a[i]), y = fold_ascii(b[i]);
            if (x != y) return x < y ? -1 : 1;
        }
    }
    return a_size < b_size ? -1 : a_size > b_size;
}

static bool contains_bytes(const uint8_t *haystack, size_t size, const uint8_t *needle, size_t needle_size,
                           bool fold) {
    if (needle_size == 0) return true;
    if (needle_size > size) return false;
    if (!fold) return memmem(haystack, size, needle, needle_size) != NULL;
    uint8_t first = fold_ascii(needle[0]);
    for (size_t at = 0; at + needle_size <= size; at++)
        if (fold_ascii(haystack[at]) == first && equal_bytes(haystack + at + 1, needle + 1, needle_size - 1, true))
            return true;
    return false;
}

/* Bytes of the UTF-8 character starting at `bytes` (a stray or truncated byte counts as one character). */
static size_t utf8_character_bytes(const uint8_t *bytes, size_t remaining) {
    uint8_t lead = bytes[0];
    size_t size = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 1;
    return size <= remaining ? size : remaining;
}

/* Whether the whole of `text` matches `pattern`, where `?` is one UTF-8 character and `*` any run of them.
 * Greedy with one backtracking point (the last `*`): the segment after a star matches at a given position in at
 * most one way (each `?` takes one character, each other byte itself), so the leftmost place the segment
 * matches is as good as any later one, and the cost is at most text length x pattern length, without recursion.
 * The star's extent grows a whole character at a time, so `?` always starts on a character boundary. */
static bool like_match(const uint8_t *text, size_t text_size, const uint8_t *pattern, size_t pattern_size,
                       bool fold) {
    size_t t = 0, p = 0, star_p = SIZE_MAX, star_t = 0;
    while (t < text_size) {
        if (p < pattern_size && pattern[p] == '*') {
            star_p = p++;
            star_t = t;
        } else if (p < pattern_size && pattern[p] == '?') {
            t += utf8_character_bytes(text + t, text_size - t);
            p++;
        } else if (p < pattern_size &&
                   (fold ? fold_ascii(pattern[p]) == fold_ascii(text[t]) : pattern[p] == text[t])) {
            p++;
            t++;
        } else if (star_p != SIZE_MAX) {
            star_t += utf8_character_bytes(text + star_t, text_size - star_t);
            t = star_t;
            p = star_p + 1;
        } else {
            return false;
        }
    }
    while (p < pattern_size && pattern[p] == '*') p++;
    return p == pattern_size;
}

void cc_string_matcher_init(cc_string_matcher *matcher, columnar_string_op op, const void *needle,
                            size_t needle_size, uint32_t flags) {
    bool fold = (flags & COLUMNAR_STRING_FOLD_ASCII_CASE) != 0;
    const uint8_t *needle_bytes = needle_size ? needle : empty_bytes;
    *matcher = (cc_string_matcher){ op, needle_bytes, needle_size, fold, !fold || is_ascii(needle_bytes, needle_size) };
}

uint8_t cc_string_match(const cc_string_matcher *m, const uint8_t *row, size_t size) {
    bool fold = m->fold;
    if (fold && (!m->needle_ascii || !is_ascii(row, size))) return 2;
    const uint8_t *needle = m->needle;
    size_t n = m->needle_size;
    switch (m->op) {
    case COLUMNAR_STRING_EQ: return size == n && equal_bytes(row, needle, n, fold);
    case COLUMNAR_STRING_NE: return !(size == n && equal_bytes(row, needle, n, fold));
    case COLUMNAR_STRING_BEGINS_WITH: return size >= n && equal_bytes(row, needle, n, fold);
    case COLUMNAR_STRING_ENDS_WITH: return size >= n && equal_bytes(row + size - n, needle, n, fold);
    case COLUMNAR_STRING_CONTAINS: return contains_bytes(row, size, needle, n, fold);
    case COLUMNAR_STRING_LIKE: return like_match(row, size, needle, n, fold);
    case COLUMNAR_STRING_LT: return order_bytes(row, size, needle, n, fold) < 0;
    case COLUMNAR_STRING_LE: return order_bytes(row, size, needle, n, fold) <= 0;
    case COLUMNAR_STRING_GT: return order_bytes(row, size, needle, n, fold) > 0;
    case COLUMNAR_STRING_GE: return order_bytes(row, size, needle, n, fold) >= 0;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Rows of a view                                                                                               */
/* ---------------------------------------------------------------------------------------------------------- */

bool cc_bytes_view_ok(const columnar_column_view *view) {
    if (view->type != COLUMNAR_TYPE_STRING && view->type != COLUMNAR_TYPE_BINARY && view->type != COLUMNAR_TYPE_MIXED)
        return false;
    if (!cc_view_nulls_ok(view)) return false;
    if (view->all_default) return true;
    const columnar_array *values = &view->values;
    if (values->encoding == COLUMNAR_ENCODING_SHORT_STRINGS)
        return (values->width == 4 || values->width == 8 || values->width == 16 || values->width == 32) &&
               values->count >= view->count && (view->count == 0 || values->data);
    return cc_packed_array_ok(values, view->count) && cc_values_base_ok(view) &&
           view->blob.encoding == COLUMNAR_ENCODING_BYTES &&
           (view->blob.count == 0 || view->blob.data);
}

static int short_string_corrupt(const columnar_column_view *view, uint64_t row, uint32_t unused) {
    return CC_CORRUPT(0, "short string %llu of a %u-byte slot array records %u unused bytes",
                      (unsigned long long)row, view->values.width, unused);
}

static int offsets_corrupt(const columnar_column_view *view, uint64_t row, int64_t start, int64_t end) {
    return CC_CORRUPT(0, "string %llu spans bytes %lld ... %lld of a %llu-byte blob", (unsigned long long)row,
                      (long long)start, (long long)end, (unsigned long long)view->blob.count);
}

int cc_view_bytes_block(const columnar_column_view *view, uint64_t from, uint64_t count, const uint8_t **data,
                        size_t *sizes) {
    const columnar_array *values = &view->values;
    if (values->encoding == COLUMNAR_ENCODING_SHORT_STRINGS) {
        uint32_t width = values->width;
        const uint8_t *slot = (const uint8_t *)values->data + from * width;
        for (uint64_t i = 0; i < count; i++, slot += width) {
            uint32_t unused = slot[width - 1];
            if (unused > width - 1) return short_string_corrupt(view, from + i, unused);
            data[i] = slot;
            sizes[i] = width - 1 - unused;
        }
        return 0;
    }
    const uint8_t *blob = view->blob.data ? view->blob.data : empty_bytes;
    int64_t ends[CC_BLOCK_ROWS];
    cc_unpack_ints(values->data, values->width, from, count, ends);
    int64_t start = from ? cc_packed_get(values->data, (uint8_t)values->width, from - 1) : 0;
    for (uint64_t i = 0; i < count; i++) {
        int64_t end = ends[i];
        if (start < 0 || end < start || (uint64_t)end > view->blob.count)
            return offsets_corrupt(view, from + i, start, end);
        data[i] = blob + start;
        sizes[i] = (size_t)(end - start);
        start = end;
    }
    return 0;
}

int columnar_view_get_bytes(const columnar_column_view *view, uint64_t row, const void **out_data,
                            size_t *out_size, bool *out_is_null) {
    if (!view || !out_data || !out_size || !out_is_null) return CC_MISUSE("columnar_view_get_bytes: NULL argument");
    if (!cc_bytes_view_ok(view) || row >= view->count)
        return CC_MISUSE("row %llu of a %llu-row view is not a string, binary or mixed value",
                         (unsigned long long)row, (unsigned long long)view->count);
    *out_data = empty_bytes;
    *out_size = 0;
    *out_is_null = false;
    if (view->all_default) {
        *out_is_null = view->nullable;
        return 0;
    }
    if (view->nulls.encoding && cc_packed_get(view->nulls.data, (uint8_t)view->nulls.width, row) != 0) {
        *out_is_null = true;
        return 0;
    }
    const uint8_t *data;
    size_t size;
    int rc = cc_view_bytes_block(view, row, 1, &data, &size);
    if (rc) return rc;
    if (size) *out_data = data;
    *out_size = size;
    return 0;
}

/* Matches every row's bytes, a block at a time (null rows too: the caller overwrites them). */
static int match_rows(const columnar_column_view *view, const cc_string_matcher *m, uint8_t *out) {
    const uint8_t *data[CC_BLOCK_ROWS];
    size_t sizes[CC_BLOCK_ROWS];
    for (uint64_t from = 0; from < view->count; from += CC_BLOCK_ROWS) {
        uint64_t rows = view->count - from < CC_BLOCK_ROWS ? view->count - from : CC_BLOCK_ROWS;
        int rc = cc_view_bytes_block(view, from, rows, data, sizes);
        if (rc) return rc;
        for (uint64_t i = 0; i < rows; i++) out[from + i] = cc_string_match(m, data[i], sizes[i]);
    }
    return 0;
}

int columnar_kernel_match_string(const columnar_column_view *view, columnar_string_op op, const void *needle,
                                 size_t needle_size, bool needle_is_null, uint32_t flags, uint8_t *out_mask) {
    uint64_t rows = view->count;
    if (!cc_string_op_ok(op) || (!needle && needle_size && !needle_is_null) || view->type == COLUMNAR_TYPE_MIXED ||
        !cc_bytes_view_ok(view)) {
        memset(out_mask, 0, rows);
        return CC_MISUSE("columnar_kernel_match_string: not a string or binary view, an unknown operator, or a "
                         "NULL needle with a size");
    }
    /* The null rules of the comparison kernels: only EQ and NE can be true where a null is involved. */
    columnar_compare_op null_op = cc_string_null_op(op);
    if (needle_is_null) {
        if (cc_view_all_null(view)) {
            memset(out_mask, cc_null_row_result(null_op, true), rows);
        } else {
            memset(out_mask, cc_non_null_row_against_null(null_op), rows);
            if (!view->all_default) cc_apply_nulls(view, out_mask, cc_null_row_result(null_op, true));
        }
        return 0;
    }
    cc_string_matcher m;
    cc_string_matcher_init(&m, op, needle, needle_size, flags);
    if (view->all_default) {
        /* Every row is null or "". */
        memset(out_mask, view->nullable ? cc_null_row_result(null_op, false) : cc_string_match(&m, empty_bytes, 0),
               rows);
        return 0;
    }
    int rc = match_rows(view, &m, out_mask);
    if (rc) return rc;
    cc_apply_nulls(view, out_mask, cc_null_row_result(null_op, false));
    return 0;
}
