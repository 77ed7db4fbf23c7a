// bench/results/results.c — the HDF5 results file: groups on demand, attributes, chunked series,
// dense arrays. Every HDF5 call is checked; failures die naming the file and the object,
// with the innermost HDF5 error message appended (HDF5's own stack printing is off).
#include "results.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct results_series {
    results *r;
    char *group;     // normalized group path
    int ncols, chunk_rows;
    char *types;     // per column: 'i' or 'd'
    char **names;    // per column
    hid_t *dsets;    // per column, open until close
    double *buf;     // chunk_rows x ncols, row-major: rows [base, base + nbuf)
    void *scratch;   // chunk_rows x 8 bytes: one column, converted for writing
    int nbuf;        // rows buffered
    int dirty;       // some buffered rows are not on disk yet
    hsize_t base;    // rows before the buffer (all on disk, a multiple of chunk_rows)
};

struct results {
    hid_t file;
    char *path;
    results_series **series;
    int nseries, cap;
};

// ---- errors -------------------------------------------------------------------------

// The innermost HDF5 message, one line: a system error's text ("error message = 'No space
// left on device'") replaces HDF5's multi-line dump of time, file name and buffer address.
static herr_t first_error(unsigned n, const H5E_error2_t *err, void *data) {
    char *out = data;
    if (n != 0 || !err->desc || !err->desc[0]) return 0;
    const char *sys = strstr(err->desc, "error message = '");
    if (sys) {
        sys += strlen("error message = '");
        size_t len = strcspn(sys, "'");
        int head = (int)strcspn(err->desc, ":");
        snprintf(out, 200, "%.*s: %.*s", head, err->desc, (int)(len < 150 ? len : 150), sys);
    } else {
        snprintf(out, 200, "%s", err->desc);
        out[strcspn(out, "\n")] = 0;
    }
    return 0;
}

// Results files still open when the process exits (an error ended it): closed here, errors
// ignored, so the file on disk is as complete as it can be. HDF5's own exit handler is off
// (results_process_init): after a failed write (disk full) it crashed in H5_term_library.
static results *g_open[8];
static void close_open_files(void) {
    for (int i = 0; i < 8; i++)
        if (g_open[i]) {
            H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
            H5Fclose(g_open[i]->file);
            g_open[i] = NULL;
        }
}
static void track_open(results *r, results *was) {
    static int registered;
    if (!registered && atexit(close_open_files) == 0) registered = 1;
    for (int i = 0; i < 8; i++)
        if (g_open[i] == was) {
            g_open[i] = r;
            return;
        }
}

void results_process_init(void) { H5dont_atexit(); }

static void __attribute__((noreturn)) h5_fail(const results *r, const char *what, const char *obj) {
    char detail[200] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_error, detail);
    die_fail("results %s: %s %s failed%s%s%s", r ? r->path : "?", what, obj,
             detail[0] ? " (HDF5: " : "", detail, detail[0] ? ")" : "");
}

static hid_t chk_id(const results *r, hid_t id, const char *what, const char *obj) {
    if (id < 0) h5_fail(r, what, obj);
    return id;
}

static void chk(const results *r, herr_t e, const char *what, const char *obj) {
    if (e < 0) h5_fail(r, what, obj);
}

static int chk_tri(const results *r, htri_t t, const char *what, const char *obj) {
    if (t < 0) h5_fail(r, what, obj);
    return t > 0;
}

// ---- paths and groups ---------------------------------------------------------------

// "train//x/" -> "/train/x"; "" or "/" -> "/". Caller frees.
static char *normalize_path(const results *r, const char *path) {
    if (!path) die_fail("results %s: NULL object path", r->path);
    size_t n = strlen(path);
    char *out = xmalloc(n + 2, "results path");
    size_t o = 0;
    const char *p = path;
    while (*p) {
        while (*p == '/') p++;
        if (!*p) break;
        out[o++] = '/';
        while (*p && *p != '/') out[o++] = *p++;
    }
    if (o == 0) out[o++] = '/';
    out[o] = '\0';
    return out;
}

// Opens the group at a normalized path, creating missing groups along it. Caller closes.
static hid_t ensure_group(results *r, const char *path) {
    if (strcmp(path, "/") == 0) return chk_id(r, H5Gopen2(r->file, "/", H5P_DEFAULT), "opening group", "/");
    char *prefix = xstrdup(path, "results path");
    for (char *p = prefix + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char saved = *p;
        *p = '\0';
        if (!chk_tri(r, H5Lexists(r->file, prefix, H5P_DEFAULT), "looking up", prefix)) {
            hid_t g = chk_id(r, H5Gcreate2(r->file, prefix, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                             "creating group", prefix);
            chk(r, H5Gclose(g), "closing group", prefix);
        }
        *p = saved;
        if (saved == '\0') break;
    }
    free(prefix);
    return chk_id(r, H5Gopen2(r->file, path, H5P_DEFAULT), "opening group", path);
}

// ---- file ---------------------------------------------------------------------------

results *results_create(const char *path) {
    char err[4400];
    int safe = safe_out_check(path, err, sizeof err); // HDF5 would follow a link or open a device at path
    if (safe != SAFE_OK) die_code(safe, "results: %s", err);
    results *r = xcalloc(1, sizeof *r, "results");
    r->path = xstrdup(path, "results path");
    if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0)
        die_fail("results %s: cannot silence the HDF5 error stack", path);
    hid_t fapl = chk_id(r, H5Pcreate(H5P_FILE_ACCESS), "setting up", "file access");
    chk(r, H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), "setting up", "file access"); // close closes all
    r->file = chk_id(r, H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl), "creating", "the file");
    chk(r, H5Pclose(fapl), "closing", "file access");
    track_open(r, NULL);
    return r;
}

static void write_series_rows(results_series *s);

void results_flush(results *r) {
    for (int i = 0; i < r->nseries; i++)
        if (r->series[i]->dirty) write_series_rows(r->series[i]);
    chk(r, H5Fflush(r->file, H5F_SCOPE_GLOBAL), "flushing", "the file");
}

static void series_free(results_series *s) {
    for (int c = 0; c < s->ncols; c++) {
        char obj[512];
        snprintf(obj, sizeof obj, "%s/%s", s->group, s->names[c]);
        chk(s->r, H5Dclose(s->dsets[c]), "closing dataset", obj);
        free(s->names[c]);
    }
    free(s->names);
    free(s->types);
    free(s->dsets);
    free(s->buf);
    free(s->scratch);
    free(s->group);
    free(s);
}

int results_close(results *r) {
    results_flush(r);
    for (int i = 0; i < r->nseries; i++) series_free(r->series[i]);
    free(r->series);
    track_open(NULL, r); // closed below (or, should that fail, at exit: never twice)
    chk(r, H5Fclose(r->file), "closing", "the file");
    free(r->path);
    free(r);
    return 0;
}

// ---- attributes ---------------------------------------------------------------------

// ftype is stored in the file, mtype describes *value in memory.
static void write_attr(results *r, const char *group, const char *name, hid_t ftype, hid_t mtype,
                       const void *value) {
    if (!name || !name[0]) die_fail("results %s: empty attribute name on group %s", r->path, group);
    char *gpath = normalize_path(r, group);
    char obj[1024];
    snprintf(obj, sizeof obj, "%s attribute %s", gpath, name);
    hid_t g = ensure_group(r, gpath);
    if (chk_tri(r, H5Aexists(g, name), "looking up", obj)) chk(r, H5Adelete(g, name), "deleting", obj);
    hid_t space = chk_id(r, H5Screate(H5S_SCALAR), "creating dataspace for", obj);
    hid_t a = chk_id(r, H5Acreate2(g, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT), "creating", obj);
    chk(r, H5Awrite(a, mtype, value), "writing", obj);
    chk(r, H5Aclose(a), "closing", obj);
    chk(r, H5Sclose(space), "closing dataspace for", obj);
    chk(r, H5Gclose(g), "closing group", gpath);
    free(gpath);
}

void results_attr_str(results *r, const char *group, const char *name, const char *value) {
    if (!value) die_fail("results %s: NULL string for attribute %s on %s", r->path, name, group);
    hid_t t = chk_id(r, H5Tcopy(H5T_C_S1), "creating string type for attribute", name);
    chk(r, H5Tset_size(t, H5T_VARIABLE), "sizing string type for attribute", name);
    chk(r, H5Tset_cset(t, H5T_CSET_UTF8), "setting UTF-8 on string type for attribute", name);
    write_attr(r, group, name, t, t, &value);
    chk(r, H5Tclose(t), "closing string type for attribute", name);
}

void results_attr_double(results *r, const char *group, const char *name, double value) {
    write_attr(r, group, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

void results_attr_int(results *r, const char *group, const char *name, int64_t value) {
    write_attr(r, group, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

// ---- series -------------------------------------------------------------------------

results_series *results_series_create(results *r, const char *group, int ncols,
                                      const results_column *cols, int chunk_rows) {
    char *gpath = normalize_path(r, group);
    if (ncols < 1) die_fail("results %s: series %s has %d columns", r->path, gpath, ncols);
    if (chunk_rows < 1) die_fail("results %s: series %s chunk of %d rows", r->path, gpath, chunk_rows);
    results_series *s = xcalloc(1, sizeof *s, "results series");
    s->r = r;
    s->group = gpath;
    s->ncols = ncols;
    s->chunk_rows = chunk_rows;
    s->types = xcalloc((size_t)ncols, 1, "series column types");
    s->names = xcalloc((size_t)ncols, sizeof *s->names, "series column names");
    s->dsets = xcalloc((size_t)ncols, sizeof *s->dsets, "series datasets");
    s->buf = xcalloc((size_t)chunk_rows * (size_t)ncols, sizeof *s->buf, "series buffer");
    s->scratch = xcalloc((size_t)chunk_rows, 8, "series column scratch");

    hid_t g = ensure_group(r, gpath);
    hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = (hsize_t)chunk_rows;
    hid_t space = chk_id(r, H5Screate_simple(1, &zero, &unlimited), "creating dataspace for series", gpath);
    hid_t dcpl = chk_id(r, H5Pcreate(H5P_DATASET_CREATE), "creating properties for series", gpath);
    chk(r, H5Pset_chunk(dcpl, 1, &chunk), "setting chunk size for series", gpath);
    size_t names_len = 1;
    for (int c = 0; c < ncols; c++) {
        const char *name = cols[c].name;
        if (!name || !name[0] || strchr(name, '/'))
            die_fail("results %s: series %s column %d has a bad name", r->path, gpath, c);
        if (cols[c].type != 'i' && cols[c].type != 'd')
            die_fail("results %s: series %s column %s has type '%c' (want 'i' or 'd')", r->path, gpath,
                     name, cols[c].type);
        char obj[1024];
        snprintf(obj, sizeof obj, "%s%s%s", gpath, strcmp(gpath, "/") ? "/" : "", name);
        if (chk_tri(r, H5Lexists(g, name, H5P_DEFAULT), "looking up", obj))
            die_fail("results %s: series column %s already exists", r->path, obj);
        s->names[c] = xstrdup(name, "series column name");
        s->types[c] = cols[c].type;
        hid_t ftype = cols[c].type == 'i' ? H5T_STD_I64LE : H5T_IEEE_F64LE;
        s->dsets[c] = chk_id(r, H5Dcreate2(g, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                             "creating dataset", obj);
        names_len += strlen(name) + 1;
    }
    chk(r, H5Pclose(dcpl), "closing properties for series", gpath);
    chk(r, H5Sclose(space), "closing dataspace for series", gpath);
    chk(r, H5Gclose(g), "closing group", gpath);

    char *names = xcalloc(names_len, 1, "series column list");
    for (int c = 0; c < ncols; c++) {
        if (c) strcat(names, ",");
        strcat(names, s->names[c]);
    }
    results_attr_str(r, gpath, "columns", names);
    free(names);

    if (r->nseries == r->cap) {
        int cap = r->cap ? 2 * r->cap : 8;
        results_series **grown = realloc(r->series, (size_t)cap * sizeof *grown);
        if (!grown) die_fail("out of memory growing the series list of %s", r->path);
        r->series = grown;
        r->cap = cap;
    }
    r->series[r->nseries++] = s;
    return s;
}

static int64_t to_int64(double v) {
    // 9223372036854775807 is not a double; 2^63 is, and every double below it fits.
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return INT64_MIN;
    double rounded = nearbyint(v);
    if (!(rounded < 9223372036854775808.0)) return INT64_MIN;
    return (int64_t)rounded;
}

// Writes rows [base, base + nbuf) of every column, growing the datasets to base + nbuf.
static void write_series_rows(results_series *s) {
    results *r = s->r;
    hsize_t start = s->base, count = (hsize_t)s->nbuf, extent = s->base + (hsize_t)s->nbuf;
    for (int c = 0; c < s->ncols; c++) {
        char obj[1024];
        snprintf(obj, sizeof obj, "%s%s%s", s->group, strcmp(s->group, "/") ? "/" : "", s->names[c]);
        hid_t d = s->dsets[c];
        chk(r, H5Dset_extent(d, &extent), "extending dataset", obj);
        if (count == 0) continue;
        hid_t mtype;
        if (s->types[c] == 'i') {
            int64_t *col = s->scratch;
            for (int i = 0; i < s->nbuf; i++) col[i] = to_int64(s->buf[(size_t)i * s->ncols + c]);
            mtype = H5T_NATIVE_INT64;
        } else {
            double *col = s->scratch;
            for (int i = 0; i < s->nbuf; i++) col[i] = s->buf[(size_t)i * s->ncols + c];
            mtype = H5T_NATIVE_DOUBLE;
        }
        hid_t fspace = chk_id(r, H5Dget_space(d), "getting dataspace of", obj);
        chk(r, H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL),
            "selecting rows of", obj);
        hid_t mspace = chk_id(r, H5Screate_simple(1, &count, NULL), "creating memory dataspace for", obj);
        chk(r, H5Dwrite(d, mtype, mspace, fspace, H5P_DEFAULT, s->scratch), "writing", obj);
        chk(r, H5Sclose(mspace), "closing memory dataspace for", obj);
        chk(r, H5Sclose(fspace), "closing dataspace of", obj);
    }
    s->dirty = 0;
}

void results_series_append(results_series *s, const double *row) {
    memcpy(s->buf + (size_t)s->nbuf * s->ncols, row, (size_t)s->ncols * sizeof *row);
    s->nbuf++;
    s->dirty = 1;
    if (s->nbuf == s->chunk_rows) {
        write_series_rows(s);
        s->base += (hsize_t)s->chunk_rows;
        s->nbuf = 0;
    }
}

// ---- dense arrays -------------------------------------------------------------------

static void write_dense(results *r, const char *path, int ndim, const int *dims, hid_t ftype,
                        hid_t mtype, const void *data) {
    char *full = normalize_path(r, path);
    if (strcmp(full, "/") == 0)
        die_fail("results %s: dataset path \"%s\" names the root group", r->path, path);
    if (ndim < 1 || ndim > H5S_MAX_RANK) die_fail("results %s: dataset %s has %d dims", r->path, full, ndim);
    hsize_t hd[H5S_MAX_RANK];
    size_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (dims[i] < 0) die_fail("results %s: dataset %s dimension %d is %d", r->path, full, i, dims[i]);
        hd[i] = (hsize_t)dims[i];
        n *= (size_t)dims[i];
    }
    if (n > 0 && !data) die_fail("results %s: dataset %s has NULL data", r->path, full);
    char *slash = strrchr(full, '/');
    const char *name = slash + 1;
    char *parent = xstrdup(full, "results path");
    parent[slash == full ? 1 : slash - full] = '\0';
    hid_t g = ensure_group(r, parent);
    if (chk_tri(r, H5Lexists(g, name, H5P_DEFAULT), "looking up", full))
        chk(r, H5Ldelete(g, name, H5P_DEFAULT), "replacing", full);
    hid_t space = chk_id(r, H5Screate_simple(ndim, hd, NULL), "creating dataspace for", full);
    hid_t d = chk_id(r, H5Dcreate2(g, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                     "creating dataset", full);
    if (n > 0) chk(r, H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "writing", full);
    chk(r, H5Dclose(d), "closing dataset", full);
    chk(r, H5Sclose(space), "closing dataspace for", full);
    chk(r, H5Gclose(g), "closing group", parent);
    free(parent);
    free(full);
}

void results_dataset_f32(results *r, const char *path, int ndim, const int *dims, const float *data) {
    write_dense(r, path, ndim, dims, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, data);
}

void results_dataset_i32(results *r, const char *path, int ndim, const int *dims, const int32_t *data) {
    write_dense(r, path, ndim, dims, H5T_STD_I32LE, H5T_NATIVE_INT32, data);
}
