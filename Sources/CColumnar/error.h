/*
 * error.h — how the engine reports failures: every failing path records what went wrong (and for corruption,
 * where in the file and which check found it) in a thread-local columnar_error_info, then returns the code.
 */
#ifndef COLUMNAR_ERROR_H
#define COLUMNAR_ERROR_H

#include "columnar.h"

#include <stdint.h>

/* Records an error for columnar_last_error() and returns `code`. `source` is "file.c:line" or "". */
int cc_error(int code, uint64_t ref, const char *source, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

#define CC_STRINGIFY2(x) #x
#define CC_STRINGIFY(x) CC_STRINGIFY2(x)
#define CC_HERE __FILE_NAME__ ":" CC_STRINGIFY(__LINE__)

/* A structure read from disk failed validation at `ref`: record the check's source line (SQLite's CORRUPT_BKPT). */
#define CC_CORRUPT(ref, ...) cc_error(COLUMNAR_ECORRUPT, (uint64_t)(ref), CC_HERE, __VA_ARGS__)
/* The caller broke a rule of the API. */
#define CC_MISUSE(...) cc_error(COLUMNAR_EMISUSE, 0, CC_HERE, __VA_ARGS__)
/* Any other code, with a message. */
#define CC_FAIL(code, ...) cc_error((code), 0, "", __VA_ARGS__)

#endif /* COLUMNAR_ERROR_H */
