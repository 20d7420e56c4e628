/* LD_PRELOAD allocation counter for the agc benchmarks.
 *
 * Counts calls of malloc, calloc, realloc, posix_memalign, aligned_alloc,
 * memalign, valloc and pvalloc, and the bytes they were asked for, in
 * process-wide atomic counters; free and realloc are also counted on their
 * own (a realloc frees its old block without a free, so allocations minus
 * frees minus reallocs is what stays allocated). The real work
 * is done by glibc's __libc_* entry points, so no dlsym bootstrap is needed.
 * A benchmark reads the counters around its measured calls through
 * agcb_counts() (found with ctypes in the preloaded process) and divides
 * by the number of calls.
 *
 *   cc -O2 -shared -fPIC -o libmalloc_count.so malloc_count.c
 *   LD_PRELOAD=$PWD/libmalloc_count.so python3 ...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static uint64_t n_alloc, n_bytes, n_free, n_realloc;

static inline void count(size_t bytes) {
    __atomic_fetch_add(&n_alloc, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&n_bytes, bytes, __ATOMIC_RELAXED);
}

/* out[0]: allocation calls (reallocs included), out[1]: bytes requested,
 * out[2]: frees of non-NULL pointers, out[3]: reallocs. */
void agcb_counts(uint64_t out[4]) {
    out[0] = __atomic_load_n(&n_alloc, __ATOMIC_RELAXED);
    out[1] = __atomic_load_n(&n_bytes, __ATOMIC_RELAXED);
    out[2] = __atomic_load_n(&n_free, __ATOMIC_RELAXED);
    out[3] = __atomic_load_n(&n_realloc, __ATOMIC_RELAXED);
}

void *malloc(size_t n) { count(n); return __libc_malloc(n); }

void *calloc(size_t k, size_t n) { count(k * n); return __libc_calloc(k, n); }

void *realloc(void *p, size_t n) {
    count(n);
    __atomic_fetch_add(&n_realloc, 1, __ATOMIC_RELAXED);
    return __libc_realloc(p, n);
}

void free(void *p) {
    if (p) __atomic_fetch_add(&n_free, 1, __ATOMIC_RELAXED);
    __libc_free(p);
}

void *memalign(size_t align, size_t n) { count(n); return __libc_memalign(align, n); }

void *aligned_alloc(size_t align, size_t n) { count(n); return __libc_memalign(align, n); }

int posix_memalign(void **out, size_t align, size_t n) {
    if (align < sizeof(void *) || (align & (align - 1))) return EINVAL;
    count(n);
    void *p = __libc_memalign(align, n);
    if (!p && n) return ENOMEM;
    *out = p;
    return 0;
}

void *valloc(size_t n) { count(n); return __libc_memalign(4096, n); }

void *pvalloc(size_t n) { count(n); return __libc_memalign(4096, (n + 4095) & ~(size_t)4095); }
