/*
 * error.c — error names (columnar_strerror) and the thread-local details of the last failure.
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_message[512];
static _Thread_local columnar_error_info last_info = { 0, "", 0, "" };

int cc_error(int code, uint64_t ref, const char *source, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(last_message, sizeof last_message, format, args);
    va_end(args);
    last_info.code = code;
    last_info.message = last_message;
    last_info.ref = ref;
    last_info.source = source ? source : "";
    return code;
}

const columnar_error_info *columnar_last_error(void) { return &last_info; }

const char *columnar_strerror(int code) {
    switch (code) {
    case COLUMNAR_OK: return "success";
    case COLUMNAR_ECORRUPT: return "the database file is damaged";
    case COLUMNAR_ENOTDB: return "not a Columnar database file";
    case COLUMNAR_EFORMAT: return "unsupported file format version";
    case COLUMNAR_EMISUSE: return "invalid use of the API";
    case COLUMNAR_ENOTFOUND: return "not found";
    case COLUMNAR_EEXISTS: return "already exists";
    case COLUMNAR_ETYPE: return "value of the wrong type";
    case COLUMNAR_ENULL: return "null value for a column that is not nullable";
    case COLUMNAR_ERANGE: return "index out of range";
    case COLUMNAR_EPOISONED: return "transaction failed earlier and can only be rolled back";
    case COLUMNAR_EVERSIONS: return "too many live versions";
    case COLUMNAR_EREADONLY: return "database opened read-only";
    case COLUMNAR_EREADERS: return "reader table full";
    case COLUMNAR_ETOOBIG: return "value or collection too large";
    case COLUMNAR_EMAPFULL: return "database larger than the reserved mapping";
    case COLUMNAR_ELOCKFILE: return "lock file damaged or unusable";
    case COLUMNAR_ESTORAGE: return "the storage failed and the file refuses writes until reopened";
    case COLUMNAR_EKEY: return "the encryption key does not match the file";
    default:
        if (code < 0 && code > -4096) return strerror(-code);
        return "unknown error";
    }
}
