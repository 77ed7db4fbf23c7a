// bench/cli/cmd_data.c — `posbench data speech-synth --out DIR [--seed S] [--scale smoke|small|paper]`:
// writes the synthesized Speech Commands set (datasets/speech/synth.h) for data.name=speech-commands.
#include "cmd_data.h"
#include "../config/config.h"
#include "../../core/common.h"
#include "../../datasets/speech/synth.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void data_help(void) {
    printf("usage: posbench data speech-synth --out DIR [--seed S] [--scale smoke|small|paper] [--quiet]\n"
           "Writes a synthesized Google Speech Commands v1 set in the real layout (DIR/<word>/<speaker>_nohash_0.wav,\n"
           "DIR/_background_noise_/, validation_list.txt, testing_list.txt, speakers.tsv): the 30 v1 words spoken by\n"
           "libespeak-ng for many speakers (voice, variant, rate, pitch), 1-s 16 kHz clips. Use it with\n"
           "data.name=speech-commands data.path=DIR. The same seed and scale give identical bytes.\n"
           "  --out DIR     the folder to create (must not exist; written as DIR.partial, renamed when complete)\n"
           "  --seed S      seed (default 0)\n"
           "  --scale S     smoke: 20 speakers, 600 clips, 3 x 5 s noise (about 20 MB)\n"
           "                small: 200 speakers, 6,000 clips, 3 x 30 s noise (about 195 MB)\n"
           "                paper: 2,000 speakers, 60,000 clips, 3 x 60 s noise (about 1.9 GB; default small)\n"
           "  --quiet       no progress lines\n");
}

int cmd_data(int argc, char **argv) {
    if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
        data_help();
        if (argc < 1) die_input("posbench data needs a subcommand (valid: speech-synth)");
        return 0;
    }
    if (strcmp(argv[0], "speech-synth") != 0) die_input("unknown data subcommand '%s' (valid: speech-synth)", argv[0]);
    const char *out = NULL, *scale = "small";
    unsigned long seed = 0;
    int verbose = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            data_help();
            return 0;
        } else if (!strcmp(a, "--quiet")) {
            verbose = 0;
        } else if (!strcmp(a, "--out") || !strcmp(a, "--scale") || !strcmp(a, "--seed")) {
            if (!v) die_input("%s needs a value", a);
            i++;
            if (!strcmp(a, "--out")) out = v;
            else if (!strcmp(a, "--scale")) scale = v;
            else {
                char *end;
                seed = strtoul(v, &end, 10);
                if (!*v || *end || v[0] == '-' || seed > 4294967295ul)
                    die_input("--seed needs an integer in [0, 4294967295] (got '%s')", v);
            }
        } else {
            const char *valid = "--out, --seed, --scale, --quiet";
            die_input("unknown option '%s'%s for posbench data speech-synth (valid: %s)", a, cfg_flag_hint(a, valid), valid);
        }
    }
    if (!out || !out[0]) die_input("posbench data speech-synth needs --out DIR");
    const synth_scale *sc = synth_scale_find(scale);
    if (!sc) die_input("--scale '%s' is not a scale (valid: smoke, small, paper)", scale);
    char err[2048];
    if (synth_write(out, (uint32_t)seed, sc, verbose, err, sizeof err) != 0) die_input("%s", err);
    if (verbose) fprintf(stderr, "speech-synth: wrote %s (%d speakers x %d words)\n", vis(out), sc->speakers, SYNTH_WORDS);
    return 0;
}
