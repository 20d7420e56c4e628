/* Times calls of hostcall's add4 export from C: argv[1] calls, each releasing its result.
 * Built by the benchmark against the library: cc -O2 driver.c -I OUT -L OUT -lhostcall
 * -DADD4=<symbol> -DRELEASE=<symbol> [-DADD4_INTO=<symbol>]. Prints one line of
 * key=value pairs; allocation counts come from malloc_count.c when it is preloaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hostcall.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

typedef void (*counts_fn)(uint64_t out[4]);

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    float x[4] = {0, 1, 2, 3}, y[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    int64_t shape[1] = {4};
    DLTensor tx = {x, {1, 0}, 1, {2, 32, 1}, shape, NULL, 0};
    DLTensor ty = {y, {1, 0}, 1, {2, 32, 1}, shape, NULL, 0};
    DLTensor *out = NULL;
    counts_fn counts = (counts_fn)dlsym(RTLD_DEFAULT, "agcb_counts");
    uint64_t c0[4] = {0}, c1[4] = {0};

    if (ADD4(&tx, &ty, &out) != 0 || ((float *)out->data)[3] != 3.5f) {
        fprintf(stderr, "add4 failed or gave a wrong result\n");
        return 1;
    }
    RELEASE(out);
    for (long i = 0; i < n / 10; i++) {  /* warm-up */
        ADD4(&tx, &ty, &out);
        RELEASE(out);
    }
    if (counts) counts(c0);
    double t0 = now();
    for (long i = 0; i < n; i++) {
        if (ADD4(&tx, &ty, &out) != 0) return 1;
        RELEASE(out);
    }
    double t1 = now();
    if (counts) counts(c1);
    printf("ns_per_call=%.1f", 1e9 * (t1 - t0) / n);
    if (counts)
        printf(" mallocs_per_call=%.2f bytes_per_call=%.1f", (double)(c1[0] - c0[0]) / n,
               (double)(c1[1] - c0[1]) / n);
#ifdef ADD4_INTO
    float z[4];
    DLTensor tz = {z, {1, 0}, 1, {2, 32, 1}, shape, NULL, 0};
    for (long i = 0; i < n / 10; i++) ADD4_INTO(&tx, &ty, &tz);
    if (counts) counts(c0);
    t0 = now();
    for (long i = 0; i < n; i++)
        if (ADD4_INTO(&tx, &ty, &tz) != 0) return 1;
    t1 = now();
    if (counts) counts(c1);
    printf(" into_ns_per_call=%.1f", 1e9 * (t1 - t0) / n);
    if (counts) printf(" into_mallocs_per_call=%.2f", (double)(c1[0] - c0[0]) / n);
#endif
    printf("\n");
    return 0;
}
