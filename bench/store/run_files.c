// bench/store/run_files.c — run state from the results file, setting damaged files aside, the
// run lock, and path building without truncation (see run_files.h).
#include "run_files.h"
#include "../results/run_read.h"
#include "../results/run_screen.h"
#include "../../core/common.h"
#include "../../core/safe_file.h"
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

const char *run_file_state_name(run_file_state s) {
    static const char *names[] = {"absent", "done", "diverged", "damaged"};
    return names[s];
}

static void set_why(char *why, size_t len, const char *fmt, const char *arg) {
    if (why && len) snprintf(why, len, fmt, arg);
}

// The root attribute `status` of an open file, into buf; -1 when absent or not a string.
static int read_status(hid_t file, char *buf, size_t len) {
    hid_t root = H5Gopen2(file, "/", H5P_DEFAULT);
    if (root < 0) return -1;
    htri_t has = H5Aexists(root, "status");
    hid_t a = has > 0 ? H5Aopen(root, "status", H5P_DEFAULT) : -1;
    H5Gclose(root);
    if (a < 0) return -1;
    hid_t t = H5Aget_type(a), m = H5Tcopy(H5T_C_S1);
    int rc = -1;
    if (t >= 0 && m >= 0 && H5Tget_class(t) == H5T_STRING && H5Tset_cset(m, H5Tget_cset(t)) >= 0) {
        if (H5Tis_variable_str(t) > 0) {
            char *v = NULL;
            if (H5Tset_size(m, H5T_VARIABLE) >= 0 && H5Aread(a, m, &v) >= 0 && v) {
                snprintf(buf, len, "%s", v);
                H5free_memory(v);
                rc = 0;
            }
        } else if (H5Tset_size(m, len) >= 0 && H5Tset_strpad(m, H5T_STR_NULLTERM) >= 0 && H5Aread(a, m, buf) >= 0) {
            buf[len - 1] = 0;
            rc = 0;
        }
    }
    if (m >= 0) H5Tclose(m);
    if (t >= 0) H5Tclose(t);
    H5Aclose(a);
    return rc;
}

run_file_state run_file_status(const char *h5_path, char *why, size_t whylen) {
    struct stat st;
    if (lstat(h5_path, &st) != 0) { // a link is not followed: not a run file we wrote
        if (errno == ENOENT) return RUN_FILE_ABSENT;
        set_why(why, whylen, "cannot be read: %s", strerror(errno));
        return RUN_FILE_DAMAGED;
    }
    if (!S_ISREG(st.st_mode)) {
        set_why(why, whylen, "is %s, not a regular file", safe_file_kind(st.st_mode));
        return RUN_FILE_DAMAGED;
    }
    H5E_auto2_t old_fn;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0) H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    hid_t file = H5Fopen(h5_path, H5F_ACC_RDONLY, fapl >= 0 ? fapl : H5P_DEFAULT);
    if (fapl >= 0) H5Pclose(fapl);
    run_file_state state = RUN_FILE_DAMAGED;
    if (file < 0) {
        set_why(why, whylen, "does not open as HDF5 (truncated or corrupt)%s", "");
    } else {
        char status[64];
        if (read_status(file, status, sizeof status) != 0) set_why(why, whylen, "has no root attribute 'status'%s", "");
        else if (!strcmp(status, "done")) state = RUN_FILE_DONE;
        else if (!strcmp(status, "diverged")) state = RUN_FILE_DIVERGED;
        else set_why(why, whylen, "has status '%s' (a finished file says done or diverged)", status);
        if (H5Fclose(file) < 0 && state != RUN_FILE_DAMAGED) {
            state = RUN_FILE_DAMAGED;
            set_why(why, whylen, "does not close cleanly as HDF5 (corrupt)%s", "");
        }
    }
    if (state == RUN_FILE_DONE) { // done only with a sound /final (run_screen.h): else no report would count it
        rr_run r;
        char err[1400], bad[256];
        if (rr_read(h5_path, RR_ATTRS, &r, err, sizeof err) != 0) {
            state = RUN_FILE_DAMAGED;
            set_why(why, whylen, "cannot be read whole: %s", err);
        } else {
            if (rr_final_check(&r, bad, sizeof bad) != 0) state = RUN_FILE_DAMAGED, set_why(why, whylen, "says done but %s", bad);
            rr_free(&r);
        }
    }
    H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
    return state;
}

int run_file_set_aside(const char *path, char *moved, size_t movedlen, char *err, size_t errlen) {
    for (int n = 1; n < 1000; n++) {
        int w = n == 1 ? snprintf(moved, movedlen, "%s.damaged", path) : snprintf(moved, movedlen, "%s.damaged.%d", path, n);
        if (w < 0 || (size_t)w >= movedlen) {
            snprintf(err, errlen, "%.200s...: path too long to set the file aside", path);
            return -1;
        }
        // link() never replaces an existing file: the first free name wins, then the old name goes.
        if (link(path, moved) == 0) {
            if (unlink(path) != 0) {
                snprintf(err, errlen, "cannot remove %s after linking it to %s: %s", path, moved, strerror(errno));
                return -1;
            }
            return 0;
        }
        if (errno != EEXIST) {
            if (rename(path, moved) == 0) return 0; // a file system without hard links
            snprintf(err, errlen, "cannot move %s to %s: %s", path, moved, strerror(errno));
            return -1;
        }
    }
    snprintf(err, errlen, "cannot set %s aside: %s.damaged .. .999 all exist", path, path);
    return -1;
}

int run_lock_take(const char *base, char *holder, size_t holderlen) {
    char path[4200];
    run_path_format(path, sizeof path, "the run lock", "%s.lock", base);
    for (int attempt = 0; attempt < 100; attempt++) {
        int fd;
        char err[4400];
        int rc = safe_open_update(path, O_RDWR | O_CREAT, &fd, err, sizeof err); // never a link, FIFO or device
        if (rc != SAFE_OK) die_code(rc, "cannot take the run lock: %s (give a writable --out directory)", err);
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            char pid[64] = "";
            ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
            pid[n > 0 ? n : 0] = 0;
            pid[strcspn(pid, "\n")] = 0;
            if (pid[0]) snprintf(holder, holderlen, "process %s (lock %s)", pid, path);
            else snprintf(holder, holderlen, "another process (lock %s)", path);
            close(fd);
            return -1;
        }
        // The holder before us may have unlinked the file as it released it: our lock is on
        // that unlinked inode, which nobody else sees. Only a lock on the file now at the path counts.
        struct stat mine, now;
        if (fstat(fd, &mine) == 0 && lstat(path, &now) == 0 && mine.st_ino == now.st_ino && mine.st_dev == now.st_dev) {
            char who[64];
            int w = snprintf(who, sizeof who, "%ld\n", (long)getpid());
            if (ftruncate(fd, 0) != 0 || pwrite(fd, who, (size_t)w, 0) != w) { /* the flock is what counts */ }
            return fd;
        }
        close(fd);
    }
    die_fail("cannot take the lock %s: it keeps being replaced", path);
}

void run_lock_release(const char *base, int fd) {
    char path[4200];
    run_path_format(path, sizeof path, "the run lock", "%s.lock", base);
    unlink(path);
    close(fd);
}

void run_files_check(const char *base) {
    static const char *const suffixes[] = {".h5", ".h5.partial", ".ckpt", ".weights", ".lock", ".metrics.jsonl",
                                           ".metrics.jsonl.partial", ".log"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char path[4200];
        struct stat st;
        run_path_format(path, sizeof path, "a run file", "%s%s", base, suffixes[i]);
        if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
            die_input("%s: is %s, not a regular file (a run's files are regular files that posbench writes; it never "
                      "writes through a link or device: remove it, or give another --out)", path, safe_file_kind(st.st_mode));
    }
}

void run_path_format(char *buf, size_t len, const char *what, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len)
        die_input("the path of %s would be %d characters (at most %zu): %.120s... (use a shorter --out)", what, n,
                  len - 1, buf);
}
