// bench/train/print_config.h — `posbench train --print-config`: the resolved configuration of a
// run (every key of the table, defaults included) with its run id and results file, as YAML.
#pragma once
#include "train_types.h"
#include "../config/config.h"
#include <stdio.h>

// Writes to out:
//   # posbench train --print-config: ...
//   run_id: <the id train_run would use>
//   results: <out_dir>/<run_id>.h5
//   data:            (config_yaml: every key, nested by its dotted prefix)
//     ...
void train_print_config(const config *cfg, const train_options *opt, FILE *out);
