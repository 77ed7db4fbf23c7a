// bench/run/sweep.h — `posbench sweep key=v1,v2 ... [seeds=0..2] [--name N] [--save FILE.yaml]
// [run flags]`: Hydra-style multiruns without writing YAML. The arguments become an experiment
// file (one stage, `main`):
//   key=v            one value: the key goes into `base:`
//   key=v1,v2,...    several values: one `matrix:` axis (first axis given = slowest, as in YAML)
//   key=a..b         an integer key: every integer from a to b (inclusive)
//   key=[1,2],[3]    a list key (eval.resolutions ...): each bracketed list is one value
//   seeds=0..2 / seeds=0,3,5   the experiment's `seeds:` list
// Every key and value is checked against the key table first (unknown keys and values get
// "did you mean"; exit 2). That file is then run by exactly `posbench run`'s code (bench/run/
// runner.h: locks, resume, skipping done runs, the results folder DIR/<name>/main/, names/, the
// experiment copy the report reads), so its run ids are those of `posbench run` on the file.
// --save FILE writes the file there (and runs it; add --dry-run to only list the runs);
// without --save it is a temporary file, removed afterwards (kept and named when it fails to load).
// --name N: the experiment name (default "sweep-" + the swept keys, '.' as '_'). Every other
// flag goes to `posbench run` (--out, --jobs, --device, --threads, --dry-run, --force,
// --retries, --fail-fast, --only, --shard); --scale has no meaning here (exit 2).
#pragma once
#include <stdio.h>

// argv: the arguments after "sweep". Returns the exit status of the run (0, 1), 2 on bad input.
int cmd_sweep(int argc, char **argv);

// The experiment text for the sweep arguments args[0..n) (key=values and seeds=...), named
// `name` (NULL: the default name); command is the text for its header comment. Bad input exits 2.
// Caller frees.
char *sweep_yaml(char *const *args, int n, const char *name, const char *command);
