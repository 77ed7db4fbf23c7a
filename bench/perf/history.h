// bench/perf/history.h — `posbench bench --history DIR [--out OUT]`: the saved regression
// benchmark results in DIR (every *.tsv file; format in regress.h), ordered by their `date`
// fact (then by file name), as a trend per metric.
//
// Per file and metric, the value and its 95% confidence interval over the file's samples:
//   time    the geometric mean, exp(m ± t_{0.975,n−1}·s/√n) with m, s the mean and sample std of
//           the log samples (the quantity `--compare` tests)
//   other   the arithmetic mean, mean ± t_{0.975,n−1}·s/√n
//   one sample: the value, no interval.
// Writes OUT (default DIR/history):
//   history.md               the files (commit, date, CPU, threads) and, per metric, a table of
//                            value, CI, n and the ratio to the previous file that has it,
//                            with its figure
//   figures/<metric>.png,.svg  the value against file order with the CI as a band (plots/history.gp)
//   figures/data/<metric>.dat  the numbers behind each figure
// A metric absent from a file is a gap (not a failure). Exit status: 0; 1 a file could not be
// written or gnuplot failed; 2 bad input (DIR unreadable, no *.tsv in it, a malformed file
// named FILE:LINE, gnuplot not found: the Markdown is written first).
#pragma once

int bench_history(const char *dir, const char *out_dir);
