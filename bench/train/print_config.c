// bench/train/print_config.c — `posbench train --print-config` (print_config.h): what a run would
// be, without loading data or training.
#include "print_config.h"
#include <stdlib.h>

void train_print_config(const config *cfg, const train_options *opt, FILE *out) {
    char run_id[13];
    if (opt->run_id) snprintf(run_id, sizeof run_id, "%s", opt->run_id);
    else config_run_id(cfg, run_id); // as train_run names the run
    char *yaml = config_yaml(cfg);
    fprintf(out, "# posbench train --print-config: the resolved configuration (defaults included)\n");
    fprintf(out, "run_id: %s\nresults: \"%s/%s.h5\"\n%s", run_id, opt->out_dir, run_id, yaml);
    free(yaml);
    fflush(out);
}
