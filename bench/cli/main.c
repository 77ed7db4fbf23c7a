// bench/cli/main.c — the posbench command line: subcommands, their flags and --help.
// Exit status: 0 ok, 1 a run failed, 2 bad input (flags, keys, data files).
#include "cmd_data.h"
#include "../../core/cpu/blas_kernels.h"
#include "cmd_export.h"
#include "cmd_version.h"
#include "cmd_watch.h"
#include "../crosscheck/crosscheck.h"
#include "../config/config.h"
#include "../experiment/experiment.h"
#include "../perf/history.h"
#include "../perf/perf.h"
#include "../perf/ranks.h"
#include "../perf/regress.h"
#include "../report/plot.h"
#include "../report/report.h"
#include "../results/results.h"
#include "../run/launch.h"
#include "../run/runner.h"
#include "../run/sweep.h"
#include "../train/train.h"
#include "../train/print_config.h"
#include "../../core/comm.h"
#include "../../core/common.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *usage_text =
    "usage: posbench <command> [options]\n"
    "commands:\n"
    "  run EXPERIMENT.yaml     run an experiment's runs (matrix x seeds x stages), resumable\n"
    "  list EXPERIMENT.yaml    its runs with ids, stages, axis values and status\n"
    "  train [key=value ...]   train one run from the defaults plus overrides\n"
    "  sweep key=v1,v2 ...     run the product of the values (and seeds=0..2) like run, without a YAML file\n"
    "  report DIR              Markdown tables (mean ± std over seeds) to stdout and DIR/REPORT.md\n"
    "  plot DIR                gnuplot figures (PNG and SVG) into DIR/figures/\n"
    "  export DIR              one row per run (config, /final metrics) as CSV or JSON, for pandas\n"
    "  watch DIR               live view of the runs below DIR: state, step, loss, ETA, last eval\n"
    "  slurm EXPERIMENT.yaml   an sbatch job-array script that shards the experiment\n"
    "  bench                   CPU step time, GFLOP/s vs in-process sgemm, ratio to PyTorch\n"
    "  data speech-synth       write the synthesized Speech Commands set (--out DIR)\n"
    "  crosscheck EXPERIMENT.yaml --stage S [--match key=value ...]\n"
    "                          train those runs with posbench and with PyTorch, compare (Welch, TOST)\n"
    "  --version               version, commit, compiler, BLAS, CUDA, CPU features\n"
    "run 'posbench <command> --help' for the options of a command\n";

static void usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "posbench: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage_text);
    exit(EXIT_BAD_INPUT);
}

static long parse_long_flag(const char *flag, const char *value, long min) {
    long max = !strcmp(flag, "--threads") ? POSBENCH_MAX_THREADS : !strcmp(flag, "--iters") ? 1000000 : !strcmp(flag, "--ranks") ? 65536 : LONG_MAX;
    return parse_int_flag(flag, value, min, max);
}

// Shared flags: --threads N and --device (core/device.h). Returns 1 when argv[*i] was one.
static const char *device_flag; // --device as given (NULL: auto)
static int common_flag(int argc, char **argv, int *i) {
    const char *a = argv[*i];
    if (!strcmp(a, "--threads")) {
        posbench_set_threads((int)parse_long_flag(a, *i + 1 < argc ? argv[++*i] : NULL, 1));
        return 1;
    }
    if (!strcmp(a, "--device")) {
        device_flag = *i + 1 < argc ? argv[++*i] : "";
        device_flag_validate(device_flag);
        return 1;
    }
    return 0;
}

static void train_help(void) {
    printf("usage: posbench train [key=value ...] [--out DIR] [--threads N] [--device D]\n"
           "                      [--force] [--fresh] [--stop-after STEP] [--init WEIGHTS] [--plan FILE]\n"
           "                      [--print-config] [--ranks N]\n"
           "Trains one run from the defaults below plus the overrides, evaluates top-1/top-5 on the\n"
           "test split after every epoch and writes DIR/<run-id>.h5 (DIR defaults to results/train).\n"
           "The run id is a hash of every key that changes results; rerunning the same command\n"
           "resumes from the run's checkpoint, or reports that it is already finished.\n"
           "  --out DIR         results directory (default results/train)\n"
           "  --threads N       CPU threads (default: all cores)\n"
           "  --device D        auto | cpu | cpu-guarded | cuda (auto: cuda when a GPU can run it, else cpu;\n"
           "                    cpu-guarded: the CPU ops with backend memory fenced off, for tests)\n"
           "  --force           retrain a finished run (its file is replaced only when the new run ends)\n"
           "  --fresh           ignore an existing checkpoint of this run\n"
           "  --stop-after S    checkpoint and stop after global step S (resume later)\n"
           "  --plan FILE       write the crosscheck plan of this run (data, batch order, augmentation\n"
           "                    draws, initial weights; bench/train/train_plan.c) instead of training\n"
           "  --print-config    print the resolved configuration (every key, defaults included, as YAML)\n"
           "                    with the run id and results file, then exit without training\n"
           "  --init WEIGHTS    start from a finished run's DIR/<run-id>.weights (tensors with the same\n"
           "                    name and shape are copied; the others keep their fresh initialisation)\n"
           "  --ranks N         train across N processes: starts mpirun -np N (flags from POSBENCH_MPIRUN_ARGS,\n"
           "                    e.g. --hostfile) and gives the job one exit status: 0 done, 2 bad input, 1 any\n"
           "                    failure, a rank killed outright included (mpirun alone exits 128 + signal);\n"
           "                    --threads is per rank (default: this machine's cores / N)\n"
           "Across processes: mpirun -np N posbench train ... trains micro-batch r of every batch on rank r\n"
           "(train.accumulate=N's run, bitwise on the CPU); rank 0 writes the files (needs a build with MPI).\n"
           "--help TOPIC prints only the keys of TOPIC: a group (pe, model, train, ...), a key, or a word of\n"
           "their descriptions.\n\n");
    config_print_help(stdout, NULL);
}

// posbench train --help TOPIC: the keys of one topic, or exit 2 naming the groups when none match.
static void train_help_topic(const char *topic) {
    if (config_print_help(stdout, topic) == 0)
        die_input("no key is about '%s'%s (key groups: %s; posbench train --help lists every key)", topic,
                  cfg_flag_hint(topic, config_key_groups()), config_key_groups());
}

// The key of override `arg` (key=value) must not be one of the earlier overrides given[0..n):
// a key given twice is an error, as in YAML (the later value would silently win).
static void override_once(const char *const *given, int n, const char *arg) {
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) return; // not key=value: config_apply_override says so
    size_t len = (size_t)(eq - arg);
    for (int j = 0; j < n; j++)
        if (!strncmp(given[j], arg, len) && given[j][len] == '=')
            die_input("%.*s is given twice on the command line ('%s', then '%s'): give each key once", (int)len, arg,
                      given[j], arg);
}

// posbench train --ranks N (launch.h): the arguments were checked in this process; mpirun then
// starts N ranks of `posbench train` with them (and --threads cores/N unless given).
static int train_on_ranks(int ranks, config *cfg, const train_options *opt, char **args, int nargs, int threads_given,
                          int print_config) {
    if (comm_launched_size() > 0)
        die_input("--ranks %d under an MPI launcher: --ranks starts mpirun itself (run posbench train --ranks N alone, or "
                  "mpirun -np N posbench train without --ranks)", ranks);
    if (opt->plan_path) die_input("--plan writes one process's crosscheck plan: run it without --ranks");
    long acc = cfg_int(cfg, "train.accumulate");
    if (acc != 1 && acc != ranks)
        die_input("train.accumulate=%ld with --ranks %d: rank r trains micro-batch r of every batch (valid: "
                  "train.accumulate=1 or %d)", acc, ranks, ranks);
    if (print_config) { // the configuration the ranks will train: train.accumulate=N's run id
        char kv[64], err[1024];
        snprintf(kv, sizeof kv, "train.accumulate=%d", ranks);
        if (config_apply_override(cfg, kv, err, sizeof err) != 0) die_input("%s", err);
        train_print_config(cfg, opt, stdout);
        return 0;
    }
    if (!comm_mpi_built())
        die_input("--ranks needs a posbench built with MPI (mpicc was not found at build time: make deps, then make)");
    if (!launch_mpirun_found()) die_input("--ranks needs mpirun on PATH (make deps installs Debian's openmpi-bin)");
    char threads[32];
    if (!threads_given) { // ranks × threads = this machine's cores
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        snprintf(threads, sizeof threads, "%ld", cores / ranks > 0 ? cores / ranks : 1);
        args[nargs++] = "--threads", args[nargs++] = threads;
    }
    return launch_ranks(ranks, args, nargs, NULL, 0);
}

static int cmd_train(int argc, char **argv) {
    config cfg;
    config_defaults(&cfg);
    train_options opt = {.out_dir = "results/train", .experiment = "train", .stage = "train"};
    char err[1024];
    const char **given = xcalloc((size_t)argc + 1, sizeof *given, "overrides"); // the key=value arguments so far
    int ngiven = 0, print_config = 0, ranks = 0, threads_given = 0;
    char **rank_args = xcalloc((size_t)argc + 4, sizeof *rank_args, "the ranks' arguments"); // argv without --ranks N
    int nrank_args = 0;
    rank_args[nrank_args++] = "train";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--ranks")) {
            ranks = (int)parse_long_flag(a, i + 1 < argc ? argv[++i] : NULL, 2);
            continue;
        }
        int first = i;
        if (!strcmp(a, "--threads")) threads_given = 1;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            const char *topic = i + 1 < argc && argv[i + 1][0] != '-' && !strchr(argv[i + 1], '=') ? argv[i + 1] : NULL;
            if (topic) train_help_topic(topic);
            else train_help();
            config_free(&cfg);
            free(given);
            free(rank_args);
            return 0;
        } else if (common_flag(argc, argv, &i)) {
        } else if (!strcmp(a, "--out")) {
            if (i + 1 >= argc || !argv[i + 1][0]) die_input("--out needs a directory name (got %s)", i + 1 < argc ? "an empty string" : "nothing");
            opt.out_dir = argv[++i];
        } else if (!strcmp(a, "--force")) {
            opt.force = 1;
        } else if (!strcmp(a, "--fresh")) {
            opt.fresh = 1;
        } else if (!strcmp(a, "--init")) {
            if (i + 1 >= argc) die_input("--init needs a weights file (<run-id>.weights of a finished run)");
            opt.init_weights = argv[++i];
        } else if (!strcmp(a, "--plan")) {
            if (i + 1 >= argc || !argv[i + 1][0]) die_input("--plan needs a file name (the crosscheck plan to write)");
            opt.plan_path = argv[++i];
        } else if (!strcmp(a, "--print-config")) {
            print_config = 1;
        } else if (!strcmp(a, "--stop-after")) {
            opt.stop_after = parse_long_flag(a, i + 1 < argc ? argv[++i] : NULL, 1);
        } else if (a[0] == '-') {
            const char *valid = "--out, --threads, --device, --force, --fresh, --stop-after, --init, --plan, --print-config, --ranks, --help";
            die_input("unknown flag '%s'%s for posbench train (valid: %s)", a, cfg_flag_hint(a, valid), valid);
        } else {
            override_once(given, ngiven, a);
            given[ngiven++] = a;
            if (config_apply_override(&cfg, a, err, sizeof err) != 0) die_input("%s", err);
        }
        for (int j = first; j <= i; j++) rank_args[nrank_args++] = argv[j]; // the flag and its value
    }
    opt.device = device_flag;
    opt.warn_busy_cores = 1;
    if (ranks > 0) { // every argument is checked above: bad input stops here, before any rank starts
        int status = train_on_ranks(ranks, &cfg, &opt, rank_args, nrank_args, threads_given, print_config);
        config_free(&cfg);
        free(given);
        free(rank_args);
        return status;
    }
    free(rank_args);
    const comm *cm = comm_world(); // MPI when mpirun started this process (docs/usage.md "One run across processes")
    if (cm->size > 1) {
        if (opt.plan_path) die_input("--plan writes one process's crosscheck plan: run it without mpirun");
        long acc = cfg_int(&cfg, "train.accumulate");
        if (acc != 1 && acc != cm->size)
            die_input("train.accumulate=%ld under %d ranks: rank r trains micro-batch r of every batch (valid: "
                      "train.accumulate=1 or %d)", acc, cm->size, cm->size);
        char kv[64]; // the run is the accumulating twin's: same run id, same results
        snprintf(kv, sizeof kv, "train.accumulate=%d", cm->size);
        if (config_apply_override(&cfg, kv, err, sizeof err) != 0) die_input("%s", err);
        if (cm->rank != 0 && !freopen("/dev/null", "w", stdout)) die_fail("rank %d: cannot silence its output", cm->rank);
        opt.comm = cm;
    }
    free(given);
    if (print_config) {
        train_print_config(&cfg, &opt, stdout);
        config_free(&cfg);
        return 0;
    }
    train_result res;
    int status = train_run(&cfg, &opt, &res);
    config_free(&cfg);
    return status;
}

int main(int argc, char **argv) {
    blas_pick_kernels(argv); // first: may re-execute with OPENBLAS_CORETYPE set (core/cpu/blas_kernels.h)
    results_process_init(); // before any HDF5 call
    if (argc < 2) usage_error("no command given%s", "");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) return cmd_version();
    if (!strcmp(cmd, "--keys-markdown")) { // hidden: docs/keys.md (make docs)
        config_print_markdown(stdout);
        return 0;
    }
    if (!strcmp(cmd, "train")) return cmd_train(argc - 2, argv + 2);
    if (comm_launched_size() > 1)
        die_input("posbench %s was started as one of %d processes by an MPI launcher: only posbench train runs across "
                  "processes (docs/usage.md \"One run across processes\")", cmd, comm_launched_size());
    if (!strcmp(cmd, "run")) return cmd_run(argc - 2, argv + 2);
    if (!strcmp(cmd, "sweep")) return cmd_sweep(argc - 2, argv + 2);
    if (!strcmp(cmd, "watch")) return cmd_watch(argc - 2, argv + 2);
    if (!strcmp(cmd, "list")) return cmd_list(argc - 2, argv + 2);
    if (!strcmp(cmd, "report")) return cmd_report(argc - 2, argv + 2);
    if (!strcmp(cmd, "plot")) return cmd_plot(argc - 2, argv + 2);
    if (!strcmp(cmd, "export")) return cmd_export(argc - 2, argv + 2);
    if (!strcmp(cmd, "slurm")) return cmd_slurm(argc - 2, argv + 2);
    if (!strcmp(cmd, "data")) return cmd_data(argc - 2, argv + 2);
    if (!strcmp(cmd, "crosscheck")) return cmd_crosscheck(argc - 2, argv + 2);
    if (!strcmp(cmd, "bench")) {
        perf_options po = {.iters = 10, .torch = 1};
        regress_options ro = {.rounds = 5, .iters = 0, .probes = 1, .time_threshold = 0.05, .memory_threshold = 0.10};
        const char *history = NULL, *history_out = NULL;
        int ranks = 0;
        for (int i = 2; i < argc; i++) {
            const char *a = argv[i];
            if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
                perf_help();
                regress_help();
                return 0;
            } else if (common_flag(argc, argv, &i)) {
            } else if (!strcmp(a, "--iters")) {
                po.iters = (int)parse_long_flag(a, i + 1 < argc ? argv[++i] : NULL, 1);
            } else if (!strcmp(a, "--no-torch")) {
                po.torch = 0;
            } else if (!strcmp(a, "--breakdown")) {
                po.breakdown = 1;
            } else if (!strcmp(a, "--arena-only")) {
                po.arena_only = 1;
            } else if (!strcmp(a, "--graph")) {
                const char *v = i + 1 < argc ? argv[++i] : "";
                if (strcmp(v, "on") && strcmp(v, "off")) die_input("--graph must be on or off, got '%s'", v);
                po.graph = !strcmp(v, "on");
            } else if (!strcmp(a, "--save") || !strcmp(a, "--compare") || !strcmp(a, "--result")) {
                if (i + 1 >= argc || !argv[i + 1][0] || argv[i + 1][0] == '-') // `--save --threads 1`: a flag, not a file
                    die_input("%s needs a file (a posbench bench results file; format in bench/perf/regress.h), got %s%s%s", a,
                              i + 1 < argc ? "'" : "nothing", i + 1 < argc ? argv[i + 1] : "", i + 1 < argc ? "'" : "");
                *(a[2] == 's' ? &ro.save : a[2] == 'c' ? &ro.compare : &ro.result) = argv[++i];
            } else if (!strcmp(a, "--history") || !strcmp(a, "--out")) {
                if (i + 1 >= argc) die_input("%s needs a directory", a);
                *(a[2] == 'h' ? &history : &history_out) = argv[++i];
            } else if (!strcmp(a, "--confirm")) {
                ro.confirm = (int)parse_long_flag(a, i + 1 < argc ? argv[++i] : NULL, 0);
            } else if (!strcmp(a, "--rounds")) {
                ro.rounds = (int)parse_long_flag(a, i + 1 < argc ? argv[++i] : NULL, 1);
            } else if (!strcmp(a, "--ranks")) {
                ranks = (int)parse_int_flag(a, i + 1 < argc ? argv[++i] : NULL, 2, 1024);
            } else if (!strcmp(a, "--no-probes")) {
                ro.probes = 0;
            } else if (!strcmp(a, "--time-threshold") || !strcmp(a, "--memory-threshold")) {
                char *end;
                const char *v = i + 1 < argc ? argv[++i] : "";
                double x = strtod(v, &end);
                if (!*v || *end || !(x > 0 && x < 10)) die_input("%s needs a fraction > 0 (0.05 = 5%%), got '%s'", a, v);
                *(a[2] == 't' ? &ro.time_threshold : &ro.memory_threshold) = x;
            } else if (!strcmp(a, "--config")) {
                if (i + 1 >= argc) die_input("--config needs a name (see posbench bench --help)");
                po.only = argv[++i];
            } else if (!strcmp(a, "--precision")) {
                const char *v = i + 1 < argc ? argv[++i] : "";
                if (strcmp(v, "fp32") && strcmp(v, "bf16")) die_input("--precision must be fp32 or bf16, got '%s'", v);
                po.precision = v;
            } else if (!strcmp(a, "--attention")) {
                const char *v = i + 1 < argc ? argv[++i] : "";
                perf_check_attention(v);
                po.attention = v;
            } else if (!strcmp(a, "--activations")) {
                const char *v = i + 1 < argc ? argv[++i] : "";
                if (strcmp(v, "fp32") && strcmp(v, "bf16")) die_input("--activations must be fp32 or bf16, got '%s'", v);
                po.activations = v;
            } else if (!strcmp(a, "--recompute")) {
                const char *v = i + 1 < argc ? argv[++i] : "";
                if (strcmp(v, "off") && strcmp(v, "gelu")) die_input("--recompute must be off or gelu, got '%s'", v);
                po.recompute = v;
            } else if (!strcmp(a, "--linear") || !strcmp(a, "--kernels")) {
                const char *v = i + 1 < argc ? argv[++i] : "";
                int lin = a[2] == 'l';
                if (lin ? strcmp(v, "gemmex") && strcmp(v, "lt") : strcmp(v, "v1") && strcmp(v, "v2"))
                    die_input("%s must be %s, got '%s'", a, lin ? "gemmex or lt" : "v1 or v2", v);
                *(lin ? &po.linear : &po.kernels) = v;
            } else {
                const char *valid = "--iters N, --config NAME, --no-torch, --threads N, --device D, --precision P, "
                                    "--attention auto|materialised|fused|cudnn|materialised-inplace, --activations fp32|bf16, --recompute off|gelu, --breakdown, --arena-only, --graph on|off, --linear gemmex|lt, --kernels v1|v2, --save FILE, --compare FILE, --result FILE, "
                                    "--history DIR, --out DIR, --rounds N, --confirm N, --no-probes, --time-threshold X, "
                                    "--memory-threshold X, --ranks N, --help";
                die_input("unknown argument '%s'%s for posbench bench (valid: %s)", a, cfg_flag_hint(a, valid), valid);
            }
        }
        po.device = device_flag;
        if (po.arena_only && (ranks || history || ro.save || ro.compare))
            die_input("--arena-only prints the predicted arena and runs nothing: it takes no --%s",
                      ranks ? "ranks" : history ? "history" : ro.save ? "save" : "compare");
        if (ranks) return bench_ranks(ranks, po.iters, posbench_threads());
        if (history_out && !history) die_input("--out DIR goes with --history DIR (where the history's Markdown and figures go)");
        if (history) {
            if (ro.save || ro.compare) die_input("--history DIR reads saved files: it does not measure, so it takes no --save or --compare");
            return bench_history(history, history_out);
        }
        if (ro.result && !ro.compare) die_input("--result FILE needs --compare BASELINE (it compares a saved result instead of measuring)");
        if (ro.save || ro.compare) {
            ro.only = po.only, ro.iters = po.iters;
            return regress_run(&ro);
        }
        return perf_run(&po);
    }
    usage_error("unknown command '%s'", cmd);
}
