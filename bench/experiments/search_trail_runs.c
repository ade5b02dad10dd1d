/* SPDX-License-Identifier: Apache-2.0 */
/* How many of sorted search's tiles take the counts' search past their end (kernel_search.cuh:
 * the tile's last first equals the second after the tile), for keys drawn as bench_primitives'
 * search cases draw them: n keys a side from [0, range), tiles of NT x VT outputs of the merge
 * with ties to the firsts. CPU only:
 *   cc -O2 bench/experiments/search_trail_runs.c -o /tmp/trail && /tmp/trail 23 23 3968
 * (log2 keys a side, log2 of the range, outputs a tile). */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long state = 88172645463325252ull;
static unsigned long long next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}
static int by_value(const void *x, const void *y) {
    unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s LOG2_KEYS LOG2_RANGE TILE\n", argv[0]);
        return 2;
    }
    long n = 1L << atoi(argv[1]), range = 1L << atoi(argv[2]), nv = atol(argv[3]);
    unsigned *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n);
    if (!a || !b || nv < 1) return 1;
    for (long i = 0; i < n; i++) {
        a[i] = (unsigned)(next() % range);
        b[i] = (unsigned)(next() % range);
    }
    qsort(a, n, sizeof *a, by_value);
    qsort(b, n, sizeof *b, by_value);
    long x = 0, y = 0, out = 0, tiles = 0, past = 0, longest = 0;
    while (out < 2 * n) {
        long x0 = x, end = out + nv < 2 * n ? out + nv : 2 * n;
        for (; out < end; out++) {
            if (x < n && (y >= n || !(b[y] < a[x])))
                x++;
            else
                y++;
        }
        tiles++;
        if (x > x0 && y < n && a[x - 1] == b[y]) {
            long run = 0;
            while (y + run < n && b[y + run] == b[y]) run++;
            past++;
            if (run > longest) longest = run;
        }
    }
    printf("%ld tiles, %ld (%.1f%%) search past their end, the longest run there %ld keys\n",
           tiles, past, 100.0 * past / tiles, longest);
    free(a);
    free(b);
    return 0;
}
