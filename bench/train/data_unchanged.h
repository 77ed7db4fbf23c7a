// bench/train/data_unchanged.h — whether the data files a finished run read are unchanged (its
// own file so that `posbench run` (bench/run/runner.c) and the trainer's claim on a run
// (train_files.c) share it without including each other).
#pragma once
#include <stddef.h>

// The fingerprints recorded in the run file at final_path (root attribute data_files,
// datasets/data_files.h) against the files as they are now, each file at most max_bytes
// (data.max_bytes). 1 unchanged (or none recorded: an older file); 0 with *why naming the first file that
// changed or cannot be read; -1 when the run file cannot be read (*why says why).
int train_data_unchanged(const char *final_path, long max_bytes, char *why, size_t whylen);
