// bench/results/export.h — `posbench export`: a results directory as one table for pandas & co.
// (read with results_read.h's rr_scan; python/posbench_results.py's load_runs builds the same
// table through h5py).
//
// Runs (one row per counted run file below DIR, by path; columns in this order):
//   run_id, experiment, stage, status, seed, path   root attrs (run_id: the file name without .h5
//                                                    when absent; seed: rr_run_seed)
//   every /config key, by name (the union over the runs; empty where a run has none); a boolean
//       key (the key table's CFG_BOOL, also as a parent stage's copy "pretrain.<key>") as true /
//       false; with `varying`, only the keys whose value (or absence) differs between the runs; a
//       key that is a fixed column's name (a foreign file's /config run_id or status) is
//       "/config/<key>", so it never shadows the fixed column of every run
//   every numeric /final attribute under its column name (objectives/metric.h's
//       metric_column_name: the report's column header, "top1 (%)", "step (ms)"), with the value
//       in that unit (stored value × scale, from the file's own /final metric_info table, the
//       one the report uses: top1 (%) = 100 × the stored fraction); the attribute's name and the
//       stored value when the file has no table or the table no entry; "/final/<column>" when a
//       fixed or /config column has that name
// Series (--series, long form): run_id, series ("train/loss", "eval/top1"), step, epoch, value —
// one row per run, series and recorded row; step and epoch are that row's /train or /eval step
// and epoch columns (empty when the group has none); the step and epoch columns are not series.
//
// Which runs: those `posbench report` counts (bench/report/run_select.h), by path.
// Formats: csv (RFC 4180: a header line, CRLF line ends, fields with ',', '"', CR or LF quoted
// with '"' doubled) and json (an array of objects, one per row, keys as the CSV header; strings
// escaped per RFC 8259). Both are valid UTF-8 whatever the files hold: a byte that is not part of
// valid UTF-8 (a Latin-1 path) is written as the visible text "\xNN" (the four characters). Numbers are written as the shortest decimal that reads back as the same
// double; a non-finite number is an empty CSV field or JSON null, never text like "nan".
#pragma once
#include "results_read.h"
#include <stddef.h>
#include <stdio.h>

typedef enum { EXPORT_CSV, EXPORT_JSON } export_format;

// Writes the runs table (series: the long-form series) of set to out; varying 1: only the
// /config keys that differ between the runs (`export --varying`). 0, or -1 when a write failed.
int export_runs(const rr_set *set, export_format fmt, int varying, FILE *out);
int export_series(const rr_set *set, export_format fmt, FILE *out);

// The pieces, for tests: one CSV field (quoted when it must be), one JSON string literal, and
// a number into buf: a whole number below 1e15 as an integer ("10", never "1e+01"), any other as
// the shortest round-trip decimal ("" when not finite).
void export_csv_field(FILE *out, const char *text);
void export_json_string(FILE *out, const char *text);
void export_number(double v, char *buf, size_t len);
// 1 when the /config attribute `name` is a boolean key (or a parent stage's copy of one).
int export_is_bool_key(const char *name);
