// bench/run/sweep.c — `posbench sweep` (rules in sweep.h): command-line axes -> an experiment
// file -> `posbench run` on it.
#include "sweep.h"
#include "../text/yaml_text.h"
#include "runner.h"
#include "../config/config.h"
#include "../experiment/experiment.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SWEEP_MAX_VALUES = 1000 };

static void sweep_help(void) {
    printf("usage: posbench sweep key=v1,v2 [key2=a,b ...] [seeds=0..2] [--name N] [--save FILE.yaml]\n"
           "                      [--out DIR] [--jobs N] [--device D] [--threads N] [--dry-run] [--force] ...\n"
           "Runs the cartesian product of the values (Hydra's -m) with posbench run's machinery: locks,\n"
           "resume, done runs skipped, results in DIR/<name>/main/ (DIR defaults to results) with names/\n"
           "links, reportable with posbench report DIR/<name>.\n"
           "  key=v           one value: every run has it\n"
           "  key=v1,v2       an axis (the first axis given varies slowest)\n"
           "  key=a..b        an integer axis a, a+1, ..., b\n"
           "  key=[1,2],[3]   a list key's axis (eval.resolutions, data.resolutions, ...)\n"
           "  seeds=0..2      the seeds (or seeds=0,3,5); without it, train.seed's one value\n"
           "  --name N        experiment name (default: sweep- and the swept keys); a name DIR already holds\n"
           "                  for a sweep with runs this one lacks is refused (exit 2): it would drop them\n"
           "  --save FILE     also write the equivalent experiment file (posbench run FILE reruns it)\n"
           "Other flags are posbench run's (posbench run --help); --dry-run lists the runs and stops.\n"
           "Keys and values: posbench train --help.\n");
}

// Splits text at the commas outside brackets into parts (pointers into the copy buf).
static int split_values(char *buf, char **parts, int max, const char *arg) {
    int n = 0, depth = 0;
    char *start = buf;
    for (char *p = buf;; p++) {
        if (*p == '[') depth++;
        else if (*p == ']') depth--;
        if ((*p == ',' && depth == 0) || *p == 0) {
            int end = *p == 0;
            *p = 0;
            if (n >= max) die_input("%s: more than %d values", arg, max);
            if (!start[0]) die_input("'%s': an empty value (values are separated by single commas)", arg);
            parts[n++] = start;
            start = p + 1;
            if (end) break;
        }
    }
    return n;
}

// a..b of integers into lo, hi: 1; 0 when text is not a range.
static int parse_range(const char *text, long *lo, long *hi, const char *arg) {
    const char *dots = strstr(text, "..");
    if (!dots) return 0;
    char first[64];
    snprintf(first, sizeof first, "%.*s", (int)(dots - text < 63 ? dots - text : 63), text);
    *lo = parse_int_flag(arg, first, 0, 4294967295L);
    *hi = parse_int_flag(arg, dots + 2, *lo, 4294967295L);
    if (*hi - *lo >= SWEEP_MAX_VALUES) die_input("%s: more than %d values in the range", arg, SWEEP_MAX_VALUES);
    return 1;
}

// One YAML value for key index k from its canonical text.
static void put_value(FILE *y, int k, const char *text) {
    if (cfg_keys[k].type == CFG_INT_LIST) {
        fputc('[', y);
        for (const char *p = text; *p; p++) fputs(*p == ',' ? ", " : (char[2]){*p, 0}, y);
        fputc(']', y);
    } else if (cfg_keys[k].type == CFG_STRING) {
        yaml_quoted(y, text);
    } else fputs(text, y);
}

typedef struct {
    int key;       // cfg_keys index
    int n;         // values
    char **text;   // canonical value texts
} sweep_axis;

char *sweep_yaml(char *const *args, int nargs, const char *name, const char *command) {
    sweep_axis *axes = xcalloc((size_t)nargs + 1, sizeof *axes, "sweep axes");
    int naxes = 0;
    char *seeds = NULL;
    config scratch;
    config_defaults(&scratch);
    for (int i = 0; i < nargs; i++) {
        const char *arg = args[i], *eq = strchr(arg, '=');
        if (!eq || eq == arg) die_input("'%s' is not key=value or key=v1,v2 (posbench sweep --help)", arg);
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(eq - arg < 127 ? eq - arg : 127), arg);
        if (!strcmp(key, "seeds")) {
            if (seeds) die_input("seeds is given twice on the command line: give it once");
            seeds = xstrdup(eq + 1, "seeds");
            continue;
        }
        int k = cfg_index(key);
        if (k < 0) {
            const char *near = cfg_suggest(key);
            die_input("unknown key '%s' in '%s'%s%s%s; posbench train --help lists every key", key, arg,
                      near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        }
        for (int a = 0; a < naxes; a++)
            if (axes[a].key == k) die_input("%s is given twice on the command line: give each key once (values v1,v2 in one argument)", key);
        char *buf = xstrdup(eq + 1, "sweep values"), *parts[SWEEP_MAX_VALUES];
        int nparts = split_values(buf, parts, SWEEP_MAX_VALUES, arg);
        sweep_axis *ax = &axes[naxes++];
        ax->key = k;
        ax->text = xcalloc(SWEEP_MAX_VALUES, sizeof *ax->text, "sweep values");
        for (int p = 0; p < nparts; p++) {
            long lo, hi;
            char err[1024], one[64];
            int range = cfg_keys[k].type == CFG_INT && parse_range(parts[p], &lo, &hi, arg);
            for (long v = range ? lo : 0; v <= (range ? hi : 0); v++) {
                const char *text = parts[p];
                if (range) snprintf(one, sizeof one, "%ld", v), text = one;
                if (config_set(&scratch, k, text, err, sizeof err) != 0) die_input("%s (in '%s')", err, arg);
                char canon[512];
                config_value_text(&scratch, k, canon, sizeof canon);
                for (int q = 0; q < ax->n; q++)
                    if (!strcmp(ax->text[q], canon)) die_input("%s: the value %s is given twice in '%s'", key, canon, arg);
                if (ax->n >= SWEEP_MAX_VALUES) die_input("%s: more than %d values", arg, SWEEP_MAX_VALUES);
                ax->text[ax->n++] = xstrdup(canon, "sweep value");
            }
        }
        free(buf);
    }
    config_free(&scratch);

    char *text = NULL;
    size_t len = 0;
    FILE *y = open_memstream(&text, &len);
    if (!y) die_fail("out of memory writing the sweep's experiment");
    fputs("# written by posbench sweep: ", y), yaml_comment(y, command), fputc('\n', y); // one line (yaml_text.h)
    fprintf(y, "# run it again with: posbench run THIS_FILE (the same run ids, results and resume)\n");
    if (name) fputs("name: ", y), yaml_quoted(y, name), fputc('\n', y); // the loader then judges the name
    else {
        fputs("name: sweep", y);
        for (int a = 0; a < naxes; a++) {
            if (axes[a].n < 2) continue;
            fputc('-', y);
            for (const char *p = cfg_keys[axes[a].key].key; *p; p++) fputc(*p == '.' ? '_' : *p, y);
        }
        fputc('\n', y);
    }
    fputs("description: ", y), yaml_quoted(y, command), fputc('\n', y);
    int nbase = 0, nmatrix = 0;
    for (int a = 0; a < naxes; a++) {
        if (axes[a].n == 1) nbase++;
        else nmatrix++;
    }
    if (nbase) fputs("base:\n", y);
    for (int a = 0; a < naxes; a++)
        if (axes[a].n == 1) fprintf(y, "  %s: ", cfg_keys[axes[a].key].key), put_value(y, axes[a].key, axes[a].text[0]), fputc('\n', y);
    if (nmatrix) fputs("matrix:\n", y);
    for (int a = 0; a < naxes; a++) {
        if (axes[a].n == 1) continue;
        fprintf(y, "  %s:\n", cfg_keys[axes[a].key].key);
        for (int v = 0; v < axes[a].n; v++) fputs("    - ", y), put_value(y, axes[a].key, axes[a].text[v]), fputc('\n', y);
    }
    if (seeds) {
        char *parts[SWEEP_MAX_VALUES];
        int nparts = split_values(seeds, parts, SWEEP_MAX_VALUES, "seeds"), count = 0;
        fputs("seeds: [", y);
        for (int p = 0; p < nparts; p++) {
            long lo, hi;
            if (!parse_range(parts[p], &lo, &hi, "seeds")) lo = hi = parse_int_flag("seeds", parts[p], 0, 4294967295L);
            for (long s = lo; s <= hi; s++) {
                if (++count > EXP_MAX_SEEDS) die_input("seeds=%s: more than %d seeds", seeds, EXP_MAX_SEEDS);
                fprintf(y, "%s%ld", count > 1 ? ", " : "", s);
            }
        }
        fputs("]\n", y);
        free(seeds);
    }
    if (fclose(y) != 0) die_fail("out of memory writing the sweep's experiment");
    for (int a = 0; a < naxes; a++) {
        for (int v = 0; v < axes[a].n; v++) free(axes[a].text[v]);
        free(axes[a].text);
    }
    free(axes);
    return text;
}

static char g_temp_yaml[4200]; // the temporary experiment file, removed at exit
static void remove_temp_yaml(void) {
    if (g_temp_yaml[0]) unlink(g_temp_yaml);
}

static void write_file(const char *path, const char *text) { // atomic, never through a link or device (core/safe_file.h)
    char err[8800];
    int rc = safe_write_file(path, text, strlen(text), err, sizeof err);
    if (rc != SAFE_OK) die_code(rc, "cannot write %s (--save needs a writable file name)", err);
}

// A sweep whose name is taken in DIR by another sweep with runs this one does not have would
// replace DIR/<name>/experiment.yaml, and the earlier runs would drop out of the folder's report:
// refused (exit 2) with the flag that keeps both. The same sweep again, or one that adds values,
// goes on (its earlier runs are among the new ones).
static void refuse_dropping_a_sweep(const experiment *now, char **run_argv, int nrun) {
    const char *out = "results";
    for (int i = 1; i + 1 < nrun; i++)
        if (!strcmp(run_argv[i], "--out")) out = run_argv[i + 1];
    char old_path[4400];
    snprintf(old_path, sizeof old_path, "%s/%s/experiment.yaml", out, now->name);
    if (access(old_path, F_OK) != 0) return;
    static experiment old;
    char err[4096];
    if (experiment_load(&old, old_path, NULL, err, sizeof err) != 0) return; // not a sweep this build reads: the runner says
    int missing = 0;
    for (int i = 0; i < old.nruns; i++) {
        int found = 0;
        for (int j = 0; j < now->nruns && !found; j++) found = !strcmp(old.runs[i].run_id, now->runs[j].run_id);
        missing += !found;
    }
    int total = old.nruns;
    experiment_free(&old);
    if (missing > 0)
        die_input("%s/%s already holds a sweep named '%s' with %d of its %d runs not in this one (%s): running this one there "
                  "would drop them from that folder's report; keep both with --name %s-2 (or another --out DIR)",
                  out, now->name, now->name, missing, total, old_path, now->name);
}

int cmd_sweep(int argc, char **argv) {
    char **axes = xcalloc((size_t)argc + 1, sizeof *axes, "sweep arguments");
    char **run_argv = xcalloc((size_t)argc + 3, sizeof *run_argv, "run arguments");
    int naxes = 0, nrun = 1; // run_argv[0]: the experiment file
    const char *save = NULL, *name = NULL;
    size_t cmdlen = 16;
    for (int i = 0; i < argc; i++) cmdlen += strlen(argv[i]) + 1;
    char *command = xmalloc(cmdlen, "sweep command");
    snprintf(command, cmdlen, "posbench sweep");
    for (int i = 0; i < argc; i++) strcat(strcat(command, " "), argv[i]);
    static const char *const valued[] = {"--out", "--jobs", "--device", "--threads", "--retries", "--only", "--shard"};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            sweep_help();
            return 0;
        } else if (!strcmp(a, "--save") || !strcmp(a, "--name")) {
            if (i + 1 >= argc || !argv[i + 1][0] || argv[i + 1][0] == '-') die_input("%s needs a %s", a, a[2] == 's' ? "file name" : "name");
            *(a[2] == 's' ? &save : &name) = argv[++i];
        } else if (!strcmp(a, "--scale")) {
            die_input("--scale picks an experiment file's override set; a sweep has none (give the keys as key=value)");
        } else if (a[0] == '-') {
            run_argv[nrun++] = argv[i];
            for (size_t v = 0; v < sizeof valued / sizeof valued[0]; v++)
                if (!strcmp(a, valued[v]) && i + 1 < argc) run_argv[nrun++] = argv[++i];
        } else {
            axes[naxes++] = argv[i];
        }
    }
    if (naxes == 0) die_input("posbench sweep needs key=v1,v2 arguments (posbench sweep --help)");
    char *yaml = sweep_yaml(axes, naxes, name, command);
    char path[4200];
    if (save) {
        snprintf(path, sizeof path, "%s", save);
        write_file(path, yaml);
        printf("wrote %s (posbench run %s runs the same sweep)\n", vis(path), vis(path));
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/posbench-sweep-XXXXXX.yaml", tmp && tmp[0] ? tmp : "/tmp");
        int fd = mkstemps(path, 5);
        if (fd < 0) die_fail("cannot create a temporary file %s: %s", path, strerror(errno));
        close(fd);
        snprintf(g_temp_yaml, sizeof g_temp_yaml, "%s", path);
        atexit(remove_temp_yaml);
        write_file(path, yaml);
    }
    free(yaml);
    // The file must load as it will run; when it does not, keep it so the message's
    // file:line:col can be read.
    static experiment check;
    char err[4096];
    if (experiment_load(&check, path, NULL, err, sizeof err) != 0) {
        g_temp_yaml[0] = 0;
        die_input("%s (the experiment posbench sweep wrote for these arguments is kept: %s)", err, path);
    }
    refuse_dropping_a_sweep(&check, run_argv, nrun);
    experiment_free(&check);
    run_argv[0] = path;
    int status = cmd_run(nrun, run_argv);
    free(axes);
    free(run_argv);
    free(command);
    return status;
}
