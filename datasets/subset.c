// datasets/subset.c — shrinking a loaded dataset in place: keep the first N examples
// (dataset_limit) or a fixed, seeded, class-balanced fraction of them (dataset_labeled_subset).
#include "dataset.h"
#include "../core/common.h"
#include "../core/rng.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void dataset_limit(dataset *ds, int limit) {
    if (limit <= 0 || limit >= ds->n) return;
    ds->n = limit; // the buffers keep their size; only the first `limit` rows are used
}

// Moves the rows with keep[i] != 0 to the front, in order, and sets n to their count.
static void compact(dataset *ds, const uint8_t *keep) {
    size_t row = (size_t)ds->channels * ds->height * ds->width;
    int out = 0;
    for (int i = 0; i < ds->n; i++) {
        if (!keep[i]) continue;
        if (out != i) {
            if (ds->pixels) memcpy(ds->pixels + (size_t)out * row, ds->pixels + (size_t)i * row, row); // out < i: no overlap
            ds->labels[out] = ds->labels[i];
            if (ds->clips) ds->clips[out] = ds->clips[i]; // audio: the row's clip
        }
        out++;
    }
    ds->n = out;
}

void dataset_labeled_subset(dataset *ds, double fraction, uint32_t seed) {
    if (!(fraction > 0.0 && fraction <= 1.0))
        die_input("labelled fraction %g is outside (0, 1] (1 keeps the whole training set)", fraction);
    if (fraction == 1.0 || ds->n == 0) return;
    int classes = ds->num_classes;
    int *count = xcalloc((size_t)classes, sizeof *count, "subset class counts");
    for (int i = 0; i < ds->n; i++) {
        int32_t c = ds->labels[i];
        if (c < 0 || c >= classes)
            die_fail("dataset %s: label %d of example %d is outside [0, %d)", ds->name, (int)c, i, classes);
        count[c]++;
    }
    // Rows of each class in dataset order: members[start[c] .. start[c] + count[c]).
    int *start = xmalloc((size_t)classes * sizeof *start, "subset class starts");
    int *fill = xcalloc((size_t)classes, sizeof *fill, "subset class fill");
    int *members = xmalloc((size_t)ds->n * sizeof *members, "subset members");
    int *perm = xmalloc((size_t)ds->n * sizeof *perm, "subset permutation");
    uint8_t *keep = xcalloc((size_t)ds->n, 1, "subset keep flags");
    for (int c = 0, at = 0; c < classes; c++) {
        start[c] = at;
        at += count[c];
    }
    for (int i = 0; i < ds->n; i++) {
        int c = ds->labels[i];
        members[start[c] + fill[c]++] = i;
    }
    for (int c = 0; c < classes; c++) {
        if (count[c] == 0) continue;
        long k = lround(fraction * count[c]);
        if (k < 1) k = 1;
        if (k > count[c]) k = count[c];
        rng_stream s = rng_stream_make(seed, RNG_SUBSET, 0, 0, (uint32_t)c);
        rng_permutation(&s, count[c], perm);
        for (long j = 0; j < k; j++) keep[members[start[c] + perm[j]]] = 1;
    }
    compact(ds, keep);
    free(count);
    free(start);
    free(fill);
    free(members);
    free(perm);
    free(keep);
}
