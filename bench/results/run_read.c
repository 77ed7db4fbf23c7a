// bench/results/run_read.c — reads one run file (attributes, series, dense arrays; run_read.h).
// Every HDF5 call is checked; a failure returns -1 with "<file>: <what> failed (HDF5: <innermost
// message>)". The file is opened with the strong close degree, so closing it on an error path
// closes every object in it. Grouping runs into stages and configurations: results_read.c.
#include "run_read.h"
#include "../config/config.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    const char *path;
    char *err;
    size_t errlen;
    int what;
    size_t left; // elements this file may still load (RR_MAX_FILE_ELEMENTS less what was read)
} ctx;

static herr_t first_error(unsigned n, const H5E_error2_t *e, void *data) {
    if (n == 0 && e->desc && e->desc[0]) snprintf(data, 200, "%s", e->desc);
    return 0;
}

// Records "<path>: <what> <obj> failed (HDF5: ...)" and returns -1.
static int fail(ctx *c, const char *what, const char *obj) {
    char detail[200] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_error, detail);
    snprintf(c->err, c->errlen, "%s: %s %s failed%s%s%s", c->path, what, obj, detail[0] ? " (HDF5: " : "",
             detail, detail[0] ? ")" : "");
    return -1;
}

void rr_grow(void **items, int n, int *cap, size_t size) {
    if (n < *cap) return;
    *cap = *cap ? 2 * *cap : 8;
    void *p = realloc(*items, (size_t)*cap * size);
    if (!p) die_fail("out of memory reading results");
    *items = p;
}

static char *fmt_double(double v) {
    char buf[64];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v || isnan(v)) break;
    }
    return xstrdup(buf, "attribute text");
}

// ---- attributes ---------------------------------------------------------------------

typedef struct {
    ctx *c;
    rr_attrs *out;
    int cap;
    const char *group;
} attr_walk;

static int read_attr(ctx *c, hid_t a, const char *obj, rr_attr *at) {
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    if (t < 0 || s < 0) return fail(c, "reading the type of", obj);
    H5T_class_t cls = H5Tget_class(t);
    hssize_t npoints = H5Sget_simple_extent_npoints(s);
    if (cls == H5T_NO_CLASS || npoints < 0) return fail(c, "reading the shape of", obj);
    at->num = NAN;
    at->nvalues = (long long)npoints;
    if (npoints != 1) {
        char buf[64];
        snprintf(buf, sizeof buf, "(%lld values)", (long long)npoints);
        at->type = '?', at->text = xstrdup(buf, "attribute");
    } else if (cls == H5T_INTEGER) {
        int64_t v;
        if (H5Aread(a, H5T_NATIVE_INT64, &v) < 0) return fail(c, "reading", obj);
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)v);
        at->type = 'i', at->text = xstrdup(buf, "attribute"), at->num = (double)v, at->is_num = 1;
    } else if (cls == H5T_FLOAT) {
        double v;
        if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0) return fail(c, "reading", obj);
        at->type = 'd', at->text = fmt_double(v), at->num = v, at->is_num = 1;
    } else if (cls == H5T_STRING) {
        htri_t vl = H5Tis_variable_str(t);
        hid_t m = H5Tcopy(H5T_C_S1);
        if (vl < 0 || m < 0) return fail(c, "reading the string type of", obj);
        if (vl) {
            char *v = NULL;
            if (H5Tset_size(m, H5T_VARIABLE) < 0 || H5Tset_cset(m, H5Tget_cset(t)) < 0 || H5Aread(a, m, &v) < 0)
                return fail(c, "reading", obj);
            at->text = xstrdup(v ? v : "", "attribute");
            H5free_memory(v);
        } else {
            size_t n = H5Tget_size(t);
            if (n > RR_MAX_STRING_BYTES) {
                snprintf(c->err, c->errlen, "%s: %s declares a %zu-byte string (more than the %zu bytes a run file's text "
                         "may hold): not read", c->path, obj, n, RR_MAX_STRING_BYTES);
                return -1;
            }
            char *v = xcalloc(n + 1, 1, "attribute");
            if (n == 0 || H5Tset_size(m, n + 1) < 0 || H5Tset_strpad(m, H5T_STR_NULLTERM) < 0 || H5Aread(a, m, v) < 0) {
                free(v);
                return fail(c, "reading", obj);
            }
            at->text = v;
        }
        H5Tclose(m);
        at->type = 's';
        char *end;
        double v = strtod(at->text, &end);
        if (at->text[0] && *end == '\0') at->num = v, at->is_num = 1;
    } else {
        at->type = '?', at->text = xstrdup("(unsupported type)", "attribute");
    }
    if (H5Tclose(t) < 0 || H5Sclose(s) < 0) return fail(c, "closing", obj);
    return 0;
}

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data) {
    attr_walk *w = data;
    char obj[512];
    snprintf(obj, sizeof obj, "%s attribute %s", w->group, name);
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return fail(w->c, "opening", obj);
    rr_grow((void **)&w->out->items, w->out->n, &w->cap, sizeof(rr_attr));
    rr_attr *at = &w->out->items[w->out->n];
    memset(at, 0, sizeof *at);
    if (read_attr(w->c, a, obj, at) < 0) {
        free(at->text);
        return -1;
    }
    at->name = xstrdup(name, "attribute name");
    w->out->n++;
    return H5Aclose(a) < 0 ? fail(w->c, "closing", obj) : 0;
}

static int attr_name_cmp(const void *a, const void *b) {
    return strcmp(((const rr_attr *)a)->name, ((const rr_attr *)b)->name);
}

// The attribute called name among the first n of items (sorted by name), NULL when absent.
static const rr_attr *attrs_find(const rr_attr *items, int n, const char *name) {
    rr_attr key = {.name = (char *)name};
    return n > 0 ? bsearch(&key, items, (size_t)n, sizeof *items, attr_name_cmp) : NULL;
}

// Reads every attribute of the group at gpath, sorted by name (strcmp); an absent group leaves out empty.
static int read_attrs(ctx *c, hid_t file, const char *gpath, rr_attrs *out) {
    htri_t e = strcmp(gpath, "/") ? H5Lexists(file, gpath, H5P_DEFAULT) : 1;
    if (e < 0) return fail(c, "looking up", gpath);
    if (!e) return 0;
    hid_t g = H5Oopen(file, gpath, H5P_DEFAULT);
    if (g < 0) return fail(c, "opening", gpath);
    attr_walk w = {c, out, 0, gpath};
    hsize_t idx = 0;
    if (H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, &w) < 0) {
        if (!c->err[0]) fail(c, "listing the attributes of", gpath);
        return -1;
    }
    if (out->n > 1) qsort(out->items, (size_t)out->n, sizeof(rr_attr), attr_name_cmp); // for rr_attr_get's bsearch
    return H5Oclose(g) < 0 ? fail(c, "closing", gpath) : 0;
}

static void free_attrs(rr_attrs *a);


// A run file written before a configuration key existed ran with that key's default (a new
// key's default keeps every existing run id and result) or, for a key whose default changed
// when it was added, with its legacy value (config_legacy_value: model.embed_init normal002),
// so a /config that lacks a key of
// bench/config/config.c's table gets the default, typed as train.c writes it. Without this, runs of
// one configuration written before and after the key was added would be told apart by it.
// A file without any /config attribute (not written by `posbench train`) is left alone. The same
// holds for the parent's keys a finetune run records as "<stage>.<key>" (e.g. pretrain.model.dim):
// every such prefix gets the keys it lacks, or runs from before and after a key would be split
// by the parent's copy of it.
#define FILL_MAX_PREFIXES 8
static void fill_config_defaults(rr_attrs *a) {
    if (a->n == 0) return;
    char prefixes[FILL_MAX_PREFIXES + 1][64] = {""}; // "" (the run's own keys), then "<stage>."
    int nprefix = 1;
    for (int j = 0; j < a->n; j++) {
        const char *name = a->items[j].name, *dot = strchr(name, '.');
        if (!dot || cfg_index(name) >= 0 || cfg_index(dot + 1) < 0 || (size_t)(dot - name) + 2 > sizeof prefixes[0]) continue;
        char prefix[64];
        snprintf(prefix, sizeof prefix, "%.*s", (int)(dot - name + 1), name);
        int seen = 0;
        for (int q = 1; q < nprefix; q++) seen |= !strcmp(prefixes[q], prefix);
        if (!seen && nprefix <= FILL_MAX_PREFIXES) snprintf(prefixes[nprefix++], sizeof prefixes[0], "%s", prefix);
    }
    config d;
    config_defaults(&d);
    int added = 0, cap = a->n, n_read = a->n; // the file's own keys, sorted (the defaults are appended)
    for (int q = 0; q < nprefix; q++)
    for (int i = 0; i < cfg_key_count; i++) {
        const cfg_key *k = &cfg_keys[i];
        char full[704]; // a 64-byte prefix and any key name
        snprintf(full, sizeof full, "%s%s", prefixes[q], k->key);
        if (attrs_find(a->items, n_read, full)) continue;
        rr_grow((void **)&a->items, a->n, &cap, sizeof(rr_attr));
        rr_attr *at = &a->items[a->n++];
        memset(at, 0, sizeof *at);
        at->name = xstrdup(full, "attribute name");
        at->num = NAN;
        if (k->type == CFG_INT || k->type == CFG_BOOL) {
            char buf[32];
            snprintf(buf, sizeof buf, "%lld", (long long)d.num[i]);
            at->type = 'i', at->text = xstrdup(buf, "attribute"), at->num = (double)(long long)d.num[i], at->is_num = 1;
        } else if (k->type == CFG_FLOAT) {
            at->type = 'd', at->text = fmt_double(d.num[i]), at->num = d.num[i], at->is_num = 1;
        } else {
            const char *v = config_legacy_value(k->key);
            if (!v) v = cfg_str(&d, k->key);
            at->type = 's', at->text = xstrdup(v ? v : "", "attribute");
            char *end;
            double x = strtod(at->text, &end);
            if (at->text[0] && *end == '\0') at->num = x, at->is_num = 1;
        }
        added = 1;
    }
    if (added && a->n > 1) qsort(a->items, (size_t)a->n, sizeof(rr_attr), attr_name_cmp);
    config_free(&d);
}

// ---- datasets -----------------------------------------------------------------------

// Reads a whole numeric dataset as double (want_double) or float into a new buffer.
static int read_dense(ctx *c, hid_t d, const char *obj, int *ndim, int *dims, size_t *numel, void **data, int want_double) {
    hid_t s = H5Dget_space(d), t = H5Dget_type(d);
    if (s < 0 || t < 0) return fail(c, "reading the shape of", obj);
    int nd = H5Sget_simple_extent_ndims(s);
    H5T_class_t cls = H5Tget_class(t);
    if (nd < 0 || cls == H5T_NO_CLASS) return fail(c, "reading the shape of", obj);
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
        snprintf(c->err, c->errlen, "%s: %s is not numeric", c->path, obj);
        return -1;
    }
    if (nd > RR_MAX_DIMS) {
        snprintf(c->err, c->errlen, "%s: %s has %d dimensions (at most %d)", c->path, obj, nd, RR_MAX_DIMS);
        return -1;
    }
    hsize_t hd[RR_MAX_DIMS];
    if (H5Sget_simple_extent_dims(s, hd, NULL) < 0) return fail(c, "reading the shape of", obj);
    size_t n = 1;
    for (int i = 0; i < nd; i++) { // the declared size, checked before anything is allocated
        if (hd[i] > RR_MAX_ELEMENTS || (hd[i] && n > RR_MAX_ELEMENTS / hd[i])) {
            char shape[160] = "";
            for (int k = 0; k < nd; k++)
                snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%llu", k ? " x " : "", (unsigned long long)hd[k]);
            snprintf(c->err, c->errlen, "%s: %s declares %s elements (more than the %zu a run file's dataset may hold): not read",
                     c->path, obj, shape, RR_MAX_ELEMENTS);
            return -1;
        }
        dims[i] = (int)hd[i], n *= (size_t)hd[i];
    }
    if (n > c->left) { // the whole file's budget: many datasets each under the cap must not add up to gigabytes
        snprintf(c->err, c->errlen, "%s: %s declares %zu elements, past the %zu all datasets of one run file may hold "
                 "together (%zu left): not read", c->path, obj, n, RR_MAX_FILE_ELEMENTS, c->left);
        return -1;
    }
    c->left -= n;
    *ndim = nd, *numel = n;
    if (cls == H5T_INTEGER && want_double) { // keep the writer's INT64_MIN as NaN
        int64_t *tmp = xmalloc(n * sizeof *tmp, "series column");
        if (n && H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, tmp) < 0) {
            free(tmp);
            return fail(c, "reading", obj);
        }
        double *v = xmalloc(n * sizeof *v, "series column");
        for (size_t i = 0; i < n; i++) v[i] = tmp[i] == INT64_MIN ? NAN : (double)tmp[i];
        free(tmp);
        *data = v;
    } else {
        void *v = xmalloc(n * (want_double ? sizeof(double) : sizeof(float)), "dataset");
        if (n && H5Dread(d, want_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
            free(v);
            return fail(c, "reading", obj);
        }
        *data = v;
    }
    if (H5Sclose(s) < 0 || H5Tclose(t) < 0) return fail(c, "closing", obj);
    return 0;
}

static int read_column(ctx *c, hid_t g, const char *gpath, const char *name, rr_series *out) {
    char obj[512];
    snprintf(obj, sizeof obj, "%s/%s", gpath, name);
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0) return fail(c, "opening series column", obj);
    int ndim, dims[RR_MAX_DIMS];
    size_t n;
    void *v;
    if (read_dense(c, d, obj, &ndim, dims, &n, &v, 1) < 0) return -1;
    if (ndim != 1) {
        free(v);
        snprintf(c->err, c->errlen, "%s: series column %s has %d dimensions (want 1)", c->path, obj, ndim);
        return -1;
    }
    rr_column *col = &out->cols[out->ncols++];
    col->name = xstrdup(name, "column name"), col->n = (long)n, col->v = v;
    return H5Dclose(d) < 0 ? fail(c, "closing", obj) : 0;
}

typedef struct {
    ctx *c;
    char **names;
    int n, cap;
} name_walk;

static herr_t name_cb(hid_t g, const char *name, const H5L_info_t *info, void *data) {
    name_walk *w = data;
    rr_grow((void **)&w->names, w->n, &w->cap, sizeof(char *));
    w->names[w->n++] = xstrdup(name, "link name");
    return 0;
}

// Names of the links in group g (name order). Caller frees. -1 on failure.
static int list_links(ctx *c, hid_t g, const char *gpath, name_walk *w) {
    hsize_t idx = 0;
    w->c = c;
    if (H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, name_cb, w) < 0) return fail(c, "listing", gpath);
    return 0;
}

static void free_names(name_walk *w) {
    for (int i = 0; i < w->n; i++) free(w->names[i]);
    free(w->names);
}

static int read_series(ctx *c, hid_t file, const char *gpath, rr_series *out) {
    htri_t e = H5Lexists(file, gpath, H5P_DEFAULT);
    if (e < 0) return fail(c, "looking up", gpath);
    if (!e) return 0;
    hid_t g = H5Gopen2(file, gpath, H5P_DEFAULT);
    if (g < 0) return fail(c, "opening group", gpath);
    rr_attrs attrs = {0};
    if (read_attrs(c, file, gpath, &attrs) < 0) {
        free_attrs(&attrs);
        return -1;
    }
    const rr_attr *cols = rr_attr_get(&attrs, "columns");
    name_walk w = {0};
    int listed = 0;
    if (cols && cols->type == 's') {
        char *save = NULL;
        for (char *tok = strtok_r(cols->text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            rr_grow((void **)&w.names, w.n, &w.cap, sizeof(char *));
            w.names[w.n++] = xstrdup(tok, "column name");
        }
        listed = 1;
    }
    free_attrs(&attrs);
    if (!listed && list_links(c, g, gpath, &w) < 0) {
        free_names(&w);
        return -1;
    }
    out->cols = xcalloc((size_t)w.n, sizeof *out->cols, "series columns");
    int rc = 0;
    for (int i = 0; i < w.n && rc == 0; i++) rc = read_column(c, g, gpath, w.names[i], out);
    free_names(&w);
    if (rc < 0) return -1;
    return H5Gclose(g) < 0 ? fail(c, "closing group", gpath) : 0;
}

typedef struct {
    rr_arrays *out;
    int cap;
} array_list;

// Reads every numeric dataset below the group at gpath (recursively); prefix names them.
static int read_arrays(ctx *c, hid_t file, const char *gpath, const char *prefix, array_list *al) {
    htri_t e = H5Lexists(file, gpath, H5P_DEFAULT);
    if (e < 0) return fail(c, "looking up", gpath);
    if (!e) return 0;
    hid_t g = H5Gopen2(file, gpath, H5P_DEFAULT);
    if (g < 0) return fail(c, "opening group", gpath);
    name_walk w = {0};
    if (list_links(c, g, gpath, &w) < 0) return -1;
    int rc = 0;
    for (int i = 0; i < w.n && rc == 0; i++) {
        char obj[1024], name[1024];
        snprintf(obj, sizeof obj, "%s/%s", gpath, w.names[i]);
        snprintf(name, sizeof name, "%s%s%s", prefix, prefix[0] ? "/" : "", w.names[i]);
        hid_t o = H5Oopen(g, w.names[i], H5P_DEFAULT);
        if (o < 0) {
            rc = fail(c, "opening", obj);
            break;
        }
        H5I_type_t kind = H5Iget_type(o);
        if (kind == H5I_GROUP) {
            rc = read_arrays(c, file, obj, name, al);
        } else if (kind == H5I_DATASET) {
            rr_grow((void **)&al->out->items, al->out->n, &al->cap, sizeof(rr_array));
            rr_array *a = &al->out->items[al->out->n];
            memset(a, 0, sizeof *a);
            void *data = NULL;
            rc = read_dense(c, o, obj, &a->ndim, a->dims, &a->numel, &data, 0);
            if (rc == 0) a->name = xstrdup(name, "array name"), a->data = data, al->out->n++;
        }
        if (rc == 0 && H5Oclose(o) < 0) rc = fail(c, "closing", obj);
    }
    free_names(&w);
    if (rc < 0) return -1;
    return H5Gclose(g) < 0 ? fail(c, "closing group", gpath) : 0;
}

// ---- one file -----------------------------------------------------------------------

int rr_read(const char *path, int what, rr_run *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    err[0] = '\0';
    ctx c = {path, err, errlen, what, RR_MAX_FILE_ELEMENTS};
    // A regular file, never through a link, never blocking on a FIFO, at most RR_MAX_FILE_BYTES
    // (core/safe_file.h), checked before HDF5 opens it by name.
    if (safe_check_read(path, RR_MAX_FILE_BYTES, SAFE_NOFOLLOW, NULL, err, errlen) != SAFE_OK) return -1;
    if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0) {
        snprintf(err, errlen, "%s: cannot silence the HDF5 error stack", path);
        return -1;
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) return fail(&c, "setting up access to", "the file");
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (file < 0) return fail(&c, "opening", "the file (is it an HDF5 file?)");
    out->path = xstrdup(path, "run path");
    int rc = read_attrs(&c, file, "/", &out->root);
    if (rc == 0) rc = read_attrs(&c, file, "/config", &out->config);
    if (rc == 0) fill_config_defaults(&out->config);
    if (rc == 0) rc = read_attrs(&c, file, "/final", &out->final);
    if (rc == 0 && (what & RR_SERIES)) rc = read_series(&c, file, "/train", &out->train);
    if (rc == 0 && (what & RR_SERIES)) rc = read_series(&c, file, "/eval", &out->eval);
    array_list al = {&out->attention, 0};
    if (rc == 0 && (what & RR_ARRAYS)) rc = read_arrays(&c, file, "/attention", "", &al);
    array_list sl = {&out->samples, 0};
    if (rc == 0 && (what & RR_ARRAYS)) rc = read_arrays(&c, file, "/samples", "", &sl);
    array_list cl = {&out->curves, 0};
    if (rc == 0 && (what & RR_ARRAYS)) rc = read_arrays(&c, file, "/position", "position", &cl);
    if (rc == 0 && (what & RR_ARRAYS)) rc = read_arrays(&c, file, "/knn", "knn", &cl);
    if (rc == 0 && (what & RR_ARRAYS)) rc = read_arrays(&c, file, "/resolution", "resolution", &cl);
    if (rc == 0 && (what & RR_ARRAYS)) rc = read_arrays(&c, file, "/speech_duration", "speech_duration", &cl);
    if (rc == 0 && (what & RR_ARRAYS)) rc = read_arrays(&c, file, "/speech_rate", "speech_rate", &cl);
    array_list wl = {&out->spatial, 0};
    if (rc == 0 && (what & RR_ARRAYS)) rc = read_arrays(&c, file, "/spatial", "", &wl);
    if (rc == 0 && (what & RR_ARRAYS)) rc = read_attrs(&c, file, "/spatial", &out->spatial_attrs);
    array_list vl = {&out->views, 0};
    if (rc == 0 && (what & RR_ARRAYS)) rc = read_arrays(&c, file, "/views", "", &vl);
    if (rc == 0 && (what & RR_ARRAYS)) rc = read_attrs(&c, file, "/views", &out->views_attrs);
    if (H5Fclose(file) < 0 && rc == 0) rc = fail(&c, "closing", "the file");
    if (rc < 0) {
        if (!err[0]) snprintf(err, errlen, "%s: reading failed", path);
        rr_free(out);
        return -1;
    }
    return 0;
}

static void free_attrs(rr_attrs *a) {
    for (int i = 0; i < a->n; i++) free(a->items[i].name), free(a->items[i].text);
    free(a->items);
}

static void free_series(rr_series *s) {
    for (int i = 0; i < s->ncols; i++) free(s->cols[i].name), free(s->cols[i].v);
    free(s->cols);
}

static void free_arrays(rr_arrays *a) {
    for (int i = 0; i < a->n; i++) free(a->items[i].name), free(a->items[i].data);
    free(a->items);
}

void rr_free(rr_run *r) {
    free(r->path);
    free_attrs(&r->root), free_attrs(&r->config), free_attrs(&r->final);
    free_series(&r->train), free_series(&r->eval);
    free_arrays(&r->attention), free_arrays(&r->samples), free_arrays(&r->curves), free_arrays(&r->spatial);
    free_attrs(&r->spatial_attrs);
    free_arrays(&r->views), free_attrs(&r->views_attrs);
    memset(r, 0, sizeof *r);
}

const rr_attr *rr_attr_get(const rr_attrs *a, const char *name) {
    return attrs_find(a->items, a->n, name);
}

const char *rr_attr_text(const rr_attrs *a, const char *name, const char *fallback) {
    const rr_attr *at = rr_attr_get(a, name);
    return at ? at->text : fallback;
}

const rr_column *rr_column_get(const rr_series *s, const char *name) {
    for (int i = 0; i < s->ncols; i++)
        if (!strcmp(s->cols[i].name, name)) return &s->cols[i];
    return NULL;
}

const rr_array *rr_array_get(const rr_arrays *a, const char *name) {
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->items[i].name, name)) return &a->items[i];
    return NULL;
}

static int parse_num(const char *s, double *v) {
    char *end;
    *v = strtod(s, &end);
    return s[0] && *end == '\0';
}

int rr_value_cmp(const char *a, const char *b) {
    double x, y;
    int na = parse_num(a, &x), nb = parse_num(b, &y);
    if (na && nb) return x < y ? -1 : x > y ? 1 : strcmp(a, b);
    if (na != nb) return na ? -1 : 1;
    return strcmp(a, b);
}

// A boolean as the files keep it (1 / 0): the spellings config keys accept.
static const char *bool_as_number(const char *v) {
    if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE")) return "1";
    if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE")) return "0";
    return v;
}

int rr_value_equal(const char *a, const char *b) {
    double x, y;
    a = bool_as_number(a), b = bool_as_number(b);
    if (parse_num(a, &x) && parse_num(b, &y)) return x == y;
    return !strcmp(a, b);
}

long rr_run_seed(const rr_run *r) {
    const rr_attr *a = rr_attr_get(&r->root, "seed");
    if (!a || !a->is_num) a = rr_attr_get(&r->config, "train.seed");
    return a && a->is_num ? (long)a->num : 0;
}

const char *rr_run_status(const rr_run *r) { return rr_attr_text(&r->root, "status", "unknown"); }

