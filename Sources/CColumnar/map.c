/*
 * map.c — the read-only shared mapping of the data file inside one reserved range of address space.
 *
 * The whole range (COLUMNAR_MAX_MAP_BYTES) is reserved once with PROT_NONE; as the file grows, the new part is
 * mapped with MAP_FIXED right after the part already mapped. Existing pages never move, so every pointer handed
 * to a reader stays valid while writers grow the file. Reserving address space commits no memory.
 */
#include "internal.h"
#include "mirror.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int cc_map_init(cc_map *map) {
    map->reserved_bytes = COLUMNAR_MAX_MAP_BYTES;
    void *base = mmap(NULL, map->reserved_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        /* Some systems limit address space (ulimit -v); fall back to a smaller reservation. */
        map->reserved_bytes = 1ull << 34;
        base = mmap(NULL, map->reserved_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (base == MAP_FAILED)
            return cc_error(-errno, 0, "", "cannot reserve address space for the mapping: %s", strerror(errno));
    }
    map->base = base;
    atomic_store(&map->mapped_bytes, 0);
    pthread_mutex_init(&map->grow_mutex, NULL);
    return 0;
}

void cc_map_destroy(cc_map *map) {
    if (map->mirror) cc_mirror_destroy(map->mirror);
    else if (map->base) munmap(map->base, map->reserved_bytes);
    map->mirror = NULL;
    map->base = NULL;
    pthread_mutex_destroy(&map->grow_mutex);
}

int cc_map_ensure(cc_map *map, int fd, uint64_t size_bytes) {
    if (map->mirror) return cc_mirror_ensure(map->mirror, fd, size_bytes);
    if (atomic_load_explicit(&map->mapped_bytes, memory_order_acquire) >= size_bytes) return 0;
    pthread_mutex_lock(&map->grow_mutex);
    int rc = 0;
    uint64_t mapped = atomic_load(&map->mapped_bytes);
    if (mapped < size_bytes) {
        struct stat st;
        if (fstat(fd, &st) != 0) {
            rc = cc_error(-errno, 0, "", "cannot stat the database file: %s", strerror(errno));
            goto done;
        }
        uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
        /* Map up to the end of the page holding the file's last byte: the rest of that page reads as zeros, while
         * a page wholly past the end would fault. Refs are checked against the used size, which is <= file size. */
        uint64_t target = ((uint64_t)st.st_size + page - 1) & ~(page - 1);
        if ((uint64_t)st.st_size < size_bytes) {
            rc = CC_CORRUPT(size_bytes, "the database needs %llu bytes but the file has %llu",
                            (unsigned long long)size_bytes, (unsigned long long)st.st_size);
            goto done;
        }
        if (target > map->reserved_bytes) {
            rc = CC_FAIL(COLUMNAR_EMAPFULL, "the file (%llu bytes) exceeds the reserved mapping (%llu bytes)",
                         (unsigned long long)target, (unsigned long long)map->reserved_bytes);
            goto done;
        }
        void *at = mmap(map->base + mapped, target - mapped, PROT_READ, MAP_SHARED | MAP_FIXED, fd, (off_t)mapped);
        if (at == MAP_FAILED) {
            rc = cc_error(-errno, 0, "", "cannot map the database file: %s", strerror(errno));
            goto done;
        }
        atomic_store_explicit(&map->mapped_bytes, target, memory_order_release);
    }
done:
    pthread_mutex_unlock(&map->grow_mutex);
    return rc;
}

int cc_map_refresh(cc_map *map, int fd, uint64_t version, uint64_t used_size, uint64_t epoch) {
    if (map->mirror) return cc_mirror_refresh(map->mirror, fd, version, used_size, epoch);
    return cc_map_ensure(map, fd, used_size);
}

void cc_map_note_written(cc_map *map, uint64_t version, uint64_t epoch) {
    if (map->mirror) cc_mirror_note_version(map->mirror, version, epoch);
}

void cc_map_note_writing(cc_map *map, uint64_t version) {
    if (map->mirror) cc_mirror_note_writing(map->mirror, version);
}

void cc_map_attach_mirror(cc_map *map, struct cc_mirror *mirror) {
    if (map->base && !map->mirror) munmap(map->base, map->reserved_bytes);
    map->mirror = mirror;
    map->base = cc_mirror_base(mirror);
    map->reserved_bytes = cc_mirror_reserved_bytes(mirror);
    cc_mirror_watch_damage(mirror, &map->verify_reads);
}

uint64_t cc_map_logical_bytes(const cc_map *map, uint64_t physical) {
    return map->mirror ? cc_crypt_logical_size(physical) : physical;
}
