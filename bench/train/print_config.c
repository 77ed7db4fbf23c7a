// bench/train/print_config.c — `posbench train --print-config` (print_config.h): what a run would
// be, without loading data or training.
#include "print_config.h"
#include "../text/yaml_text.h"
#include "../../core/common.h"
#include <stdlib.h>
#include <string.h>

void train_print_config(const config *cfg, const train_options *opt, FILE *out) {
    char run_id[13];
    if (opt->run_id) snprintf(run_id, sizeof run_id, "%s", opt->run_id);
    else config_run_id(cfg, run_id); // as train_run names the run
    char *yaml = config_yaml(cfg);
    fprintf(out, "# posbench train --print-config: the resolved configuration (defaults included)\n");
    size_t plen = strlen(opt->out_dir) + strlen(run_id) + 8;
    char *results = malloc(plen);
    if (!results) die_fail("out of memory printing the config");
    snprintf(results, plen, "%s/%s.h5", opt->out_dir, run_id);
    fprintf(out, "run_id: %s\nresults: ", run_id);
    yaml_quoted(out, results); // --out never ends its scalar (yaml_text.h)
    fprintf(out, "\n%s", yaml);
    free(results);
    free(yaml);
    fflush(out);
}
