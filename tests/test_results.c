// tests/test_results.c — the HDF5 results file (written by posbench, read back with the plain
// HDF5 C API and h5dump) and the progress display in plain and bar mode.
#include "testing.h"
#include "../bench/train/progress.h"
#include "../bench/results/results.h"
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// ---- helpers ------------------------------------------------------------------------

// Reads a scalar attribute's type class, size and (for strings) text. Returns 0 on success.
static int read_attr(hid_t file, const char *obj, const char *name, H5T_class_t *cls, size_t *size,
                     int *is_vlen_utf8, void *num, char *text, size_t text_n) {
    hid_t a = H5Aopen_by_name(file, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t t = H5Aget_type(a);
    *cls = H5Tget_class(t);
    *size = H5Tget_size(t);
    *is_vlen_utf8 = 0;
    int rc = 0;
    if (*cls == H5T_STRING) {
        *is_vlen_utf8 = H5Tis_variable_str(t) > 0 && H5Tget_cset(t) == H5T_CSET_UTF8;
        if (*is_vlen_utf8) {
            char *s = NULL;
            rc = H5Aread(a, t, &s) < 0 ? -1 : 0;
            if (!rc) snprintf(text, text_n, "%s", s ? s : "");
            hid_t space = H5Aget_space(a);
            H5Dvlen_reclaim(t, space, H5P_DEFAULT, &s);
            H5Sclose(space);
        }
    } else if (*cls == H5T_INTEGER) {
        rc = H5Aread(a, H5T_NATIVE_INT64, num) < 0 ? -1 : 0;
    } else if (*cls == H5T_FLOAT) {
        rc = H5Aread(a, H5T_NATIVE_DOUBLE, num) < 0 ? -1 : 0;
    }
    H5Tclose(t);
    H5Aclose(a);
    return rc;
}

static int str_attr_is(hid_t file, const char *obj, const char *name, const char *want, char *got, size_t n) {
    H5T_class_t cls;
    size_t size;
    int vlen;
    got[0] = '\0';
    if (read_attr(file, obj, name, &cls, &size, &vlen, NULL, got, n) < 0) {
        snprintf(got, n, "<unreadable>");
        return 0;
    }
    if (cls != H5T_STRING || !vlen) {
        snprintf(got, n, "<not a variable-length UTF-8 string>");
        return 0;
    }
    return strcmp(got, want) == 0;
}

// Runs a shell command, returns its stdout (caller frees) or NULL; *status gets the exit status.
static char *capture(const char *cmd, int *status) {
    FILE *f = popen(cmd, "r");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) buf = realloc(buf, cap *= 2);
    }
    int st = pclose(f);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (buf) buf[n] = '\0';
    return buf;
}

// Runs fn in a child with stderr captured; returns the exit status, stderr text in err.
static int run_child(void (*fn)(void *), void *arg, char *err, size_t err_n) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        fn(arg);
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t got;
    while ((got = read(fds[0], err + n, err_n - n - 1)) > 0) n += (size_t)got;
    err[n] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void child_create(void *path) { results_create(path); }

static void child_progress_env(void *unused) {
    setenv("POSBENCH_PROGRESS", "fancy", 1);
    progress p;
    progress_init(&p, stderr, "x", 10);
}

// Makes captured output printable on one protocol line: \n -> " | ", \r -> "^M", ESC -> "^[".
static const char *oneline(const char *s) {
    static char buf[2048];
    size_t o = 0;
    for (; *s && o + 4 < sizeof buf; s++) {
        const char *rep = *s == '\n' ? " | " : *s == '\r' ? "^M" : *s == '\033' ? "^[" : NULL;
        if (rep)
            for (; *rep; rep++) buf[o++] = *rep;
        else
            buf[o++] = *s;
    }
    buf[o] = '\0';
    return buf;
}

static int count_char(const char *s, char c) {
    int n = 0;
    for (; *s; s++) n += *s == c;
    return n;
}

// ---- results ------------------------------------------------------------------------

static void write_file(const char *path, const float *ent) {
    results *r = results_create(path);
    results_attr_str(r, "/", "experiment", "abl_pos");
    results_attr_str(r, "/", "status", "running");
    results_attr_int(r, "/", "seed", 7);
    results_attr_int(r, "/config", "model.depth", 12);
    results_attr_double(r, "/config", "optim.lr", 0.001);
    results_attr_str(r, "/config", "data.name", "cifar10 \xc3\xa9t\xc3\xa9"); // UTF-8 "été"
    results_column cols[3] = {{"step", 'i'}, {"loss", 'd'}, {"lr", 'd'}};
    results_series *s = results_series_create(r, "/train", 3, cols, 4);
    for (int i = 0; i < 10; i++) {
        double row[3] = {i + 1, 1.0 / (i + 1), 0.1 * i};
        results_series_append(s, row);
        if (i == 5) results_flush(r); // a mid-chunk flush, then appends continue
    }
    int dims[2] = {3, 4};
    float zeros[12] = {0};
    results_dataset_f32(r, "/attention/entropy", 2, dims, zeros); // replaced below
    results_dataset_f32(r, "/attention/entropy", 2, dims, ent);
    int32_t ids[3] = {5, -6, 7};
    int d1 = 3;
    results_dataset_i32(r, "deep//nested/ids/", 1, &d1, ids);
    results_attr_double(r, "/final", "top1", 0.875);
    results_attr_str(r, "/", "status", "done");
    int rc = results_close(r);
    test_check("results_close returns 0", rc == 0, "rc %d", rc);
}

static void check_series(hid_t f) {
    const char *names[3] = {"/train/step", "/train/loss", "/train/lr"};
    int ok_shape = 1, ok_vals = 1;
    char why[256] = "";
    for (int c = 0; c < 3; c++) {
        hid_t d = H5Dopen2(f, names[c], H5P_DEFAULT);
        if (d < 0) {
            ok_shape = ok_vals = 0;
            snprintf(why, sizeof why, "cannot open %s", names[c]);
            continue;
        }
        hid_t sp = H5Dget_space(d);
        hsize_t dim = 0, maxdim = 0, chunk = 0;
        int rank = H5Sget_simple_extent_dims(sp, &dim, &maxdim);
        hid_t dcpl = H5Dget_create_plist(d);
        int layout_ok = H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 1, &chunk) == 1 &&
                        chunk == 4 && H5Pget_nfilters(dcpl) == 0;
        hid_t t = H5Dget_type(d);
        int type_ok = c == 0 ? H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == 8
                             : H5Tget_class(t) == H5T_FLOAT && H5Tget_size(t) == 8;
        if (!(rank == 1 && dim == 10 && maxdim == H5S_UNLIMITED && layout_ok && type_ok)) {
            ok_shape = 0;
            snprintf(why, sizeof why, "%s: rank %d dim %llu unlimited %d chunked-4-unfiltered %d type %d",
                     names[c], rank, (unsigned long long)dim, maxdim == H5S_UNLIMITED, layout_ok, type_ok);
        }
        double v[10];
        if (dim == 10 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) {
            for (int i = 0; i < 10; i++) {
                double want = c == 0 ? i + 1 : c == 1 ? 1.0 / (i + 1) : 0.1 * i;
                if (v[i] != want) {
                    ok_vals = 0;
                    snprintf(why, sizeof why, "%s[%d] = %g, want %g", names[c], i, v[i], want);
                }
            }
        } else
            ok_vals = 0;
        H5Tclose(t);
        H5Pclose(dcpl);
        H5Sclose(sp);
        H5Dclose(d);
    }
    test_check("series: 3 columns, 10 rows, chunk 4, unlimited, int64/float64, no filters", ok_shape, "%s",
               ok_shape ? "" : why);
    test_check("series: values survive partial chunk and mid-chunk flush", ok_vals, "%s", ok_vals ? "" : why);
    char got[256];
    int ok = str_attr_is(f, "/train", "columns", "step,loss,lr", got, sizeof got);
    test_check("series: /train columns attribute lists names in order", ok, "got \"%s\"", got);
}

static void check_dense(hid_t f, const float *ent) {
    hid_t d = H5Dopen2(f, "/attention/entropy", H5P_DEFAULT);
    int ok = d >= 0;
    hsize_t dims[2] = {0, 0};
    float v[12];
    if (ok) {
        hid_t sp = H5Dget_space(d);
        hid_t t = H5Dget_type(d);
        ok = H5Sget_simple_extent_ndims(sp) == 2 && H5Sget_simple_extent_dims(sp, dims, NULL) == 2 &&
             dims[0] == 3 && dims[1] == 4 && H5Tget_class(t) == H5T_FLOAT && H5Tget_size(t) == 4 &&
             H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 &&
             memcmp(v, ent, sizeof v) == 0;
        H5Tclose(t);
        H5Sclose(sp);
        H5Dclose(d);
    }
    test_check("dense: /attention/entropy float32 (3,4), replaced values read back", ok, "dims %llux%llu",
               (unsigned long long)dims[0], (unsigned long long)dims[1]);
    d = H5Dopen2(f, "/deep/nested/ids", H5P_DEFAULT);
    int32_t ids[3] = {0};
    ok = d >= 0 && H5Dread(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, ids) >= 0 && ids[0] == 5 &&
         ids[1] == -6 && ids[2] == 7;
    if (d >= 0) H5Dclose(d);
    test_check("dense: int32 dataset at a normalized nested path, groups created", ok, "ids %d %d %d", ids[0],
               ids[1], ids[2]);
}

static void check_attrs(hid_t f) {
    char got[256];
    int ok = str_attr_is(f, "/", "experiment", "abl_pos", got, sizeof got);
    test_check("attr: root experiment is a UTF-8 string", ok, "got \"%s\"", got);
    ok = str_attr_is(f, "/", "status", "done", got, sizeof got);
    test_check("attr: rewriting root status replaces it", ok, "got \"%s\"", got);
    ok = str_attr_is(f, "/config", "data.name", "cifar10 \xc3\xa9t\xc3\xa9", got, sizeof got);
    test_check("attr: /config string keeps UTF-8 bytes", ok, "got \"%s\"", got);

    H5T_class_t cls;
    size_t size;
    int vlen;
    int64_t iv = 0;
    ok = read_attr(f, "/config", "model.depth", &cls, &size, &vlen, &iv, NULL, 0) == 0 &&
         cls == H5T_INTEGER && size == 8 && iv == 12;
    test_check("attr: /config int is int64 12", ok, "class %d size %zu value %lld", (int)cls, size,
               (long long)iv);
    double dv = 0;
    ok = read_attr(f, "/config", "optim.lr", &cls, &size, &vlen, &dv, NULL, 0) == 0 && cls == H5T_FLOAT &&
         size == 8 && dv == 0.001;
    test_check("attr: /config double is float64 0.001", ok, "class %d size %zu value %g", (int)cls, size, dv);
    ok = read_attr(f, "/", "seed", &cls, &size, &vlen, &iv, NULL, 0) == 0 && cls == H5T_INTEGER && iv == 7;
    test_check("attr: root seed int", ok, "value %lld", (long long)iv);
    ok = read_attr(f, "/final", "top1", &cls, &size, &vlen, &dv, NULL, 0) == 0 && cls == H5T_FLOAT &&
         dv == 0.875;
    test_check("attr: /final top1 double", ok, "value %g", dv);
}

static void check_h5dump(const char *path) {
    int st = 0;
    char *which = capture("command -v h5dump", &st);
    int have = which && st == 0 && which[0];
    free(which);
    if (!have) {
        test_skip("h5dump reads /config attribute", "h5dump not installed");
        test_skip("h5dump reads /train/loss", "h5dump not installed");
        return;
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "h5dump -a /config/data.name '%s' 2>&1", path);
    char *out = capture(cmd, &st);
    int ok = out && st == 0 && strstr(out, "cifar10") && strstr(out, "H5T_CSET_UTF8");
    test_check("h5dump reads /config attribute", ok, "rc %d%s%s", st, ok ? "" : ": ",
               ok ? "" : oneline(out ? out : ""));
    free(out);
    snprintf(cmd, sizeof cmd, "h5dump -d /train/loss '%s' 2>&1", path);
    out = capture(cmd, &st);
    ok = out && st == 0 && strstr(out, "( 10 ) / ( H5S_UNLIMITED )") && strstr(out, "0.111111, 0.1\n") &&
         strstr(out, "H5T_IEEE_F64LE");
    test_check("h5dump reads /train/loss", ok, "rc %d%s%s", st, ok ? "" : ": ",
               ok ? "" : oneline(out ? out : ""));
    free(out);
}

static void test_results(const char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/run.h5", dir);
    float ent[12];
    test_fill_uniform(ent, 12, 0.f, 3.f, 1);
    write_file(path, ent);

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    test_check("file reopens read-only with the HDF5 C API", f >= 0, "%s", path);
    if (f < 0) return;
    check_attrs(f);
    check_series(f);
    check_dense(f, ent);
    H5Fclose(f);
    check_h5dump(path);

    char err[2048];
    char bad[600];
    snprintf(bad, sizeof bad, "%s/missing-dir/run.h5", dir);
    int st = run_child(child_create, bad, err, sizeof err);
    // A missing directory is refused by the output-path rule (core/safe_file.h: the directory must
    // exist) before HDF5 is called: exit 2.
    test_check("create in a missing directory: exit 2, message names the path, no HDF5 stack dump",
               st == 2 && strstr(err, bad) && !strstr(err, "HDF5-DIAG"), "status %d, stderr: %s", st,
               oneline(err));
}

// ---- progress -----------------------------------------------------------------------

static char *run_progress(const char *mode, long total, long last_step, double interval,
                          double pretend_elapsed, long base_step) {
    setenv("POSBENCH_PROGRESS", mode, 1);
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    progress p;
    progress_init(&p, m, "train", total);
    p.interval_s = interval;
    p.base_step = base_step;
    p.started -= pretend_elapsed;
    for (long s = base_step + 1; s <= last_step; s++) {
        progress_update(&p, s, 0.4321, 2051.0);
        if (s == base_step + 2) progress_message(&p, "eval epoch %d top1 %.2f", 1, 0.5);
    }
    progress_finish(&p);
    fclose(m);
    return buf;
}

static void test_progress(void) {
    // Huge interval: only the first update, the message and the last step print.
    char *out = run_progress("plain", 100, 100, 1e9, 0, 0);
    int lines = count_char(out, '\n');
    int ok = lines == 3 && strstr(out, "train step 1/100 (1%) loss 0.4321 2051 img/s elapsed 0s ETA") &&
             strstr(out, "eval epoch 1 top1 0.50\n") && strstr(out, "train step 100/100 (100%)") &&
             strstr(out, "ETA 0s\n") && !strchr(out, '\r');
    test_check("progress plain: first line, message, final step always printed", ok, "%d lines: %s", lines,
               oneline(out));
    free(out);

    out = run_progress("plain", 50, 50, 0, 0, 0);
    lines = count_char(out, '\n');
    test_check("progress plain: interval 0 prints every step", lines == 51, "%d lines", lines);
    free(out);

    // 100 s elapsed at step 50/200 -> 150 steps left at 2 s/step = 300 s.
    out = run_progress("plain", 200, 50, 1e9, 100, 0);
    ok = strstr(out, "train step 50/200 (25%) loss 0.4321 2051 img/s elapsed 1m40s ETA 5m00s\n") != NULL;
    test_check("progress plain: ETA from elapsed and steps done; stopped run printed by finish", ok, "%s",
               oneline(out));
    free(out);

    // Resumed at 100: 25 steps in 100 s -> 75 left at 4 s/step = 300 s.
    out = run_progress("plain", 200, 125, 1e9, 100, 100);
    ok = strstr(out, "train step 125/200 (62%)") && strstr(out, "ETA 5m00s\n");
    test_check("progress plain: base_step counts only steps since init", ok, "%s", oneline(out));
    free(out);

    // Long runs format hours.
    out = run_progress("plain", 1000, 10, 1e9, 4000, 0);
    ok = strstr(out, "elapsed 1h06m ETA 110h00m") != NULL;
    test_check("progress plain: hours format", ok, "%s", oneline(out));
    free(out);

    out = run_progress("bar", 40, 40, 1e9, 0, 0);
    ok = strchr(out, '\r') &&
         strstr(out, "train [####################]  40/40  100%  loss 0.4321  2051 img/s  ETA 0s") &&
         strstr(out, "\r\033[Keval epoch 1 top1 0.50\n") && out[strlen(out) - 1] == '\n' &&
         count_char(out, '\n') == 2;
    test_check("progress bar: redraws with \\r, message clears the bar, finish ends the line", ok, "%s",
               oneline(out));
    free(out);

    out = run_progress("bar", 40, 10, 1e9, 0, 0);
    ok = strstr(out, "train [#####...............]  10/40  25%") != NULL;
    test_check("progress bar: partial bar and percentage", ok, "%s", oneline(out));
    free(out);

    char err[1024];
    int st = run_child(child_progress_env, NULL, err, sizeof err);
    test_check("progress: bad POSBENCH_PROGRESS exits 2 naming it",
               st == 2 && strstr(err, "POSBENCH_PROGRESS"), "status %d: %s", st, oneline(err));
}

int main(void) {
    char dir[] = "/tmp/posbench_results_XXXXXX";
    if (!mkdtemp(dir)) {
        test_fail("mkdtemp", "cannot create a temporary directory");
        return test_exit_code();
    }
    test_results(dir);
    test_progress();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) test_fail("cleanup", "cannot remove %s", dir);
    return test_exit_code();
}
