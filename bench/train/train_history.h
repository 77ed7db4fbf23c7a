// bench/train/train_history.h — a time series kept in memory (train_history.c): the /train,
// /eval and /val rows of a run, so a checkpoint can carry them and a resumed run replays them
// into its fresh results file. A leaf: it calls nothing else of bench/train.
#pragma once

typedef struct { // rows (count, cols), row-major
    double *rows;
    int cols;
    long count, capacity;
} history;

// Appends one row (cols values) to h, growing it; dies (exit 1) when out of memory.
void history_append(history *h, const double *row);
// Frees h's rows and empties it (cols kept).
void history_free(history *h);
