/* A counting allocator for the C drivers that check the steady state allocates nothing:
 * while `counting` is set, every malloc/calloc/realloc/memalign of the process (the library's
 * included) adds one to `allocations`; the real work is glibc's __libc_* functions. Include it
 * in exactly one file of a program. */
#ifndef AGC_TEST_COUNT_ALLOC_H_
#define AGC_TEST_COUNT_ALLOC_H_
#include <stddef.h>

extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);
extern void __libc_free(void*);

static volatile int counting = 0;
static volatile long allocations = 0;

static void count(void) {
  if (counting) allocations++;
}
void* malloc(size_t n) { count(); return __libc_malloc(n); }
void* calloc(size_t n, size_t m) { count(); return __libc_calloc(n, m); }
void* realloc(void* p, size_t n) { count(); return __libc_realloc(p, n); }
void free(void* p) { __libc_free(p); }
void* memalign(size_t a, size_t n) { count(); return __libc_memalign(a, n); }
void* aligned_alloc(size_t a, size_t n) { count(); return __libc_memalign(a, n); }
int posix_memalign(void** out, size_t a, size_t n) {
  void* p;
  count();
  p = __libc_memalign(a, n);
  if (p == NULL) return 12; /* ENOMEM */
  *out = p;
  return 0;
}

#endif
