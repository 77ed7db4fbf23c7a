// bench/train/data_unchanged.c — a finished run's data fingerprints against its files now
// (data_unchanged.h).
#include "data_unchanged.h"
#include "../results/run_read.h"
#include "../../datasets/data_files.h"
#include "../../datasets/speech/speech_commands.h"
#include <stdio.h>

int train_data_unchanged(const char *final_path, long max_bytes, char *why, size_t whylen) {
    rr_run run;
    char err[4600];
    if (rr_read(final_path, RR_ATTRS, &run, err, sizeof err) != 0) {
        snprintf(why, whylen, "%s", err);
        return -1;
    }
    const char *recorded = rr_attr_text(&run.root, "data_files", NULL);
    int same = !recorded || data_prints_verify(recorded, speech_commands_wav_print, max_bytes, why, whylen);
    rr_free(&run);
    return same;
}
