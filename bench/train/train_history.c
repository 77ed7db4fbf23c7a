// bench/train/train_history.c — in-memory time series of a run (train_history.h).
#include "train_history.h"
#include "../../core/common.h"
#include <stdlib.h>
#include <string.h>

void history_append(history *h, const double *row) {
    if (h->count == h->capacity) {
        long cap = h->capacity ? h->capacity * 2 : 1024;
        double *rows = realloc(h->rows, (size_t)cap * h->cols * sizeof(double));
        if (!rows) die_fail("out of memory growing the training history");
        h->rows = rows;
        h->capacity = cap;
    }
    memcpy(h->rows + (size_t)h->count * h->cols, row, (size_t)h->cols * sizeof(double));
    h->count++;
}

void history_free(history *h) {
    free(h->rows);
    h->rows = NULL;
    h->count = h->capacity = 0;
}
