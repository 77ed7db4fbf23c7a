// core/safe_file.c — writing (regular, atomic, never through a link or device) and reading
// (regular, capped, never blocking) files by path: the rule of safe_file.h.
#include "safe_file.h"
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *safe_file_kind(unsigned mode) {
    mode_t m = (mode_t)mode;
    return S_ISLNK(m) ? "a symbolic link" : S_ISFIFO(m) ? "a FIFO (named pipe)" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory"
         : S_ISREG(m) ? "a regular file" : "not a regular file";
}

static int refused(char *err, size_t errlen, const char *path, mode_t mode, const char *doing) {
    snprintf(err, errlen, "%s: is %s, not a regular file (posbench %s regular files only; remove it or choose another path)",
             path, safe_file_kind(mode), doing);
    return SAFE_REFUSED;
}

// The directory part of path ("." when it has none) into dir.
static int dir_of(const char *path, char *dir, size_t len) {
    const char *slash = strrchr(path, '/');
    int w = !slash ? snprintf(dir, len, ".") : slash == path ? snprintf(dir, len, "/")
                                                             : snprintf(dir, len, "%.*s", (int)(slash - path), path);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

// ---------------------------------------------------------------- writing

int safe_out_check(const char *path, char *err, size_t errlen) {
    char dir[4200];
    struct stat st;
    if (!path[0]) {
        snprintf(err, errlen, "an empty output path (give a file name)");
        return SAFE_REFUSED;
    }
    if (path[strlen(path) - 1] == '/') {
        snprintf(err, errlen, "%s: names a directory, not a file (give a file name)", path);
        return SAFE_REFUSED;
    }
    if (dir_of(path, dir, sizeof dir) != 0) {
        snprintf(err, errlen, "%.200s...: the path is too long", path);
        return SAFE_REFUSED;
    }
    if (stat(dir, &st) != 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot write into %s: %s (the directory must exist)", path, dir, strerror(e));
        return e == ENOENT || e == ENOTDIR ? SAFE_REFUSED : SAFE_IO;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: %s is %s, not a directory", path, dir, safe_file_kind(st.st_mode));
        return SAFE_REFUSED;
    }
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return SAFE_OK;
        snprintf(err, errlen, "%s: cannot check: %s", path, strerror(errno));
        return SAFE_IO;
    }
    return S_ISREG(st.st_mode) ? SAFE_OK : refused(err, errlen, path, st.st_mode, "writes");
}

static mode_t file_mode(void) { // 0666 less the umask (read without changing it for long)
    static mode_t mode;
    static int known;
    if (!known) {
        mode_t mask = umask(022);
        umask(mask);
        mode = 0666 & ~mask, known = 1;
    }
    return mode;
}

int safe_out_begin(safe_out *o, const char *path, char *err, size_t errlen) {
    memset(o, 0, sizeof *o);
    int rc = safe_out_check(path, err, errlen);
    if (rc != SAFE_OK) return rc;
    // "<dir>/.<name>.<pid>.XXXXXX": hidden, in the same directory (a rename never crosses a file system).
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    int dirlen = slash ? (int)(slash - path) + 1 : 0;
    if ((size_t)snprintf(o->path, sizeof o->path, "%s", path) >= sizeof o->path ||
        (size_t)snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.%ld.XXXXXX", dirlen, path, name, (long)getpid()) >= sizeof o->tmp) {
        snprintf(err, errlen, "%.200s...: the path is too long", path);
        return SAFE_REFUSED;
    }
    int fd = mkstemp(o->tmp); // O_EXCL: never opens what is already there, link or not
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot create %s: %s", path, o->tmp, strerror(e));
        o->tmp[0] = 0;
        return e == EACCES || e == EROFS || e == EPERM ? SAFE_REFUSED : SAFE_IO;
    }
    if (fchmod(fd, file_mode()) != 0 || !(o->f = fdopen(fd, "w"))) {
        snprintf(err, errlen, "%s: cannot set up %s: %s", path, o->tmp, strerror(errno));
        close(fd);
        unlink(o->tmp);
        o->tmp[0] = 0;
        return SAFE_IO;
    }
    return SAFE_OK;
}

void safe_out_abort(safe_out *o) {
    if (o->f) fclose(o->f);
    if (o->tmp[0]) unlink(o->tmp);
    o->f = NULL, o->tmp[0] = 0;
}

// fsync of the directory holding path, so the rename itself survives a crash (best effort: some
// file systems refuse to open or sync a directory).
static void sync_dir_of(const char *path) {
    char dir[4200];
    if (dir_of(path, dir, sizeof dir) != 0) return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        if (fsync(fd) != 0) { /* not every file system syncs directories */ }
        close(fd);
    }
}

// Renames tmp over path after checking path again; on failure tmp is removed unless keep_tmp.
static int rename_checked(const char *tmp, const char *path, int keep_tmp, char *err, size_t errlen) {
    int rc = safe_out_check(path, err, errlen); // again: what sits at path may have changed while we wrote
    if (rc == SAFE_OK && rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: cannot rename %s over it: %s", path, tmp, strerror(errno));
        rc = SAFE_IO;
    }
    if (rc != SAFE_OK) {
        if (!keep_tmp) unlink(tmp);
        return rc;
    }
    sync_dir_of(path);
    return SAFE_OK;
}

int safe_out_commit(safe_out *o, char *err, size_t errlen) {
    int bad = ferror(o->f) || fflush(o->f) != 0 || fsync(fileno(o->f)) != 0;
    int e = errno;
    bad |= fclose(o->f) != 0;
    if (!bad) e = errno;
    o->f = NULL;
    if (bad) {
        snprintf(err, errlen, "%s: writing failed: %s", o->path, strerror(e ? e : EIO));
        unlink(o->tmp);
        o->tmp[0] = 0;
        return SAFE_IO;
    }
    int rc = rename_checked(o->tmp, o->path, 0, err, errlen);
    o->tmp[0] = 0;
    return rc;
}

int safe_write_file(const char *path, const void *data, size_t n, char *err, size_t errlen) {
    safe_out o;
    int rc = safe_out_begin(&o, path, err, errlen);
    if (rc != SAFE_OK) return rc;
    if (n && fwrite(data, 1, n, o.f) != n) {
        snprintf(err, errlen, "%s: writing failed: %s", path, strerror(errno));
        safe_out_abort(&o);
        return SAFE_IO;
    }
    return safe_out_commit(&o, err, errlen);
}

int safe_rename_over(const char *tmp, const char *path, char *err, size_t errlen) {
    int fd = open(tmp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || fsync(fd) != 0) {
        snprintf(err, errlen, "%s: the complete file %s cannot be synced: %s", path, tmp, strerror(errno));
        if (fd >= 0) close(fd);
        return SAFE_IO;
    }
    close(fd);
    return rename_checked(tmp, path, 1, err, errlen);
}

int safe_open_update(const char *path, int flags, int *fd, char *err, size_t errlen) {
    *fd = -1;
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) return refused(err, errlen, path, st.st_mode, "writes");
    int f = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (f < 0) {
        int e = errno;
        if (e == ELOOP || e == ENXIO || e == EISDIR) { // replaced since the check: say what it is now
            if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) return refused(err, errlen, path, st.st_mode, "writes");
        }
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
        return e == EACCES || e == EROFS || e == EPERM || e == ENOTDIR || e == ENOENT ? SAFE_REFUSED : SAFE_IO;
    }
    if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(f);
        return refused(err, errlen, path, st.st_mode, "writes");
    }
    int fl = fcntl(f, F_GETFL);
    if (fl < 0 || fcntl(f, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        snprintf(err, errlen, "%s: cannot set up: %s", path, strerror(errno));
        close(f);
        return SAFE_IO;
    }
    *fd = f;
    return SAFE_OK;
}

int safe_fopen_update(const char *path, const char *mode, FILE **f, char *err, size_t errlen) {
    *f = NULL;
    int plus = strchr(mode, '+') != NULL, flags;
    switch (mode[0]) {
    case 'a': flags = (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND; break;
    case 'w': flags = (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC; break;
    default: flags = plus ? O_RDWR : O_RDONLY; break;
    }
    int fd, rc = safe_open_update(path, flags, &fd, err, errlen);
    if (rc != SAFE_OK) return rc;
    if (!(*f = fdopen(fd, mode))) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return SAFE_IO;
    }
    return SAFE_OK;
}

// ---------------------------------------------------------------- removing a temporary tree

static char g_remove_failed[4200]; // nftw's callback has no context: the first entry that stayed
static int g_remove_errno;

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    if (remove(path) != 0 && !g_remove_failed[0]) {
        g_remove_errno = errno;
        snprintf(g_remove_failed, sizeof g_remove_failed, "%s", path);
    }
    return 0; // go on: remove what can be removed
}

int safe_remove_tree(const char *dir, char *err, size_t errlen) {
    g_remove_failed[0] = 0;
    if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0 && !g_remove_failed[0]) {
        snprintf(err, errlen, "%s: cannot remove: %s", dir, strerror(errno));
        return SAFE_IO;
    }
    if (g_remove_failed[0]) {
        snprintf(err, errlen, "%s: cannot remove: %s", g_remove_failed, strerror(g_remove_errno));
        return SAFE_IO;
    }
    return SAFE_OK;
}

// ---------------------------------------------------------------- reading

int safe_open_read(const char *path, long long cap, int follow, int *fd, long long *size, int *missing, char *err,
                   size_t errlen) {
    *fd = -1;
    if (missing) *missing = 0;
    struct stat st;
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (follow == SAFE_NOFOLLOW ? O_NOFOLLOW : 0));
    if (f < 0) {
        int e = errno;
        if (e == ENOENT && missing) *missing = 1;
        if (e == ELOOP && follow == SAFE_NOFOLLOW && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
            return refused(err, errlen, path, st.st_mode, "reads");
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
        return e == ENOENT || e == ENOTDIR || e == EACCES || e == ELOOP || e == ENXIO ? SAFE_REFUSED : SAFE_IO;
    }
    if (fstat(f, &st) != 0) {
        snprintf(err, errlen, "%s: cannot check: %s", path, strerror(errno));
        close(f);
        return SAFE_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        close(f);
        return refused(err, errlen, path, st.st_mode, "reads");
    }
    if (cap >= 0 && (long long)st.st_size > cap) {
        snprintf(err, errlen, "%s: %lld bytes is more than the %lld this file may hold: not read", path,
                 (long long)st.st_size, cap);
        close(f);
        return SAFE_REFUSED;
    }
    int fl = fcntl(f, F_GETFL);
    if (fl < 0 || fcntl(f, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        snprintf(err, errlen, "%s: cannot set up: %s", path, strerror(errno));
        close(f);
        return SAFE_IO;
    }
    if (size) *size = (long long)st.st_size;
    *fd = f;
    return SAFE_OK;
}

int safe_fopen_read(const char *path, long long cap, int follow, FILE **f, int *missing, char *err, size_t errlen) {
    *f = NULL;
    int fd, rc = safe_open_read(path, cap, follow, &fd, NULL, missing, err, errlen);
    if (rc != SAFE_OK) return rc;
    if (!(*f = fdopen(fd, "rb"))) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return SAFE_IO;
    }
    return SAFE_OK;
}

int safe_read_file(const char *path, long long cap, int follow, char **text, size_t *n, int *missing, char *err,
                   size_t errlen) {
    *text = NULL, *n = 0;
    int fd;
    long long size;
    int rc = safe_open_read(path, cap, follow, &fd, &size, missing, err, errlen);
    if (rc != SAFE_OK) return rc;
    size_t have = 0, room = (size_t)size + 1;
    char *buf = xmalloc(room + 1, "file text");
    for (;;) {
        if (have == room) { // grew while read: at most cap
            if (cap >= 0 && (long long)have >= cap) {
                snprintf(err, errlen, "%s: grew past the %lld bytes this file may hold while read: not read", path, cap);
                free(buf), close(fd);
                return SAFE_REFUSED;
            }
            room *= 2;
            if (cap >= 0 && (long long)room > cap) room = (size_t)cap + 1;
            buf = xrealloc(buf, room + 1, "file text");
        }
        ssize_t got = read(fd, buf + have, room - have);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            snprintf(err, errlen, "%s: read error after %zu bytes: %s", path, have, strerror(errno));
            free(buf), close(fd);
            return SAFE_IO;
        }
        if (got == 0) break;
        have += (size_t)got;
    }
    close(fd);
    if (cap >= 0 && (long long)have > cap) {
        snprintf(err, errlen, "%s: grew past the %lld bytes this file may hold while read: not read", path, cap);
        free(buf);
        return SAFE_REFUSED;
    }
    buf[have] = 0;
    *text = buf, *n = have;
    return SAFE_OK;
}

int safe_check_read(const char *path, long long cap, int follow, int *missing, char *err, size_t errlen) {
    int fd, rc = safe_open_read(path, cap, follow, &fd, NULL, missing, err, errlen);
    if (rc == SAFE_OK) close(fd);
    return rc;
}

int safe_read_line(FILE *f, char **line, size_t *cap, size_t max) {
    size_t n = 0;
    int c, too_long = 0, any = 0;
    while ((c = getc(f)) != EOF) {
        any = 1;
        if (c == '\n') break;
        if (too_long) continue;
        if (n >= max) {
            too_long = 1;
            continue;
        }
        if (n + 1 >= *cap) {
            *cap = *cap ? 2 * *cap : 256;
            *line = xrealloc(*line, *cap, "line");
        }
        (*line)[n++] = (char)c;
    }
    if (!any) return 0;
    if (!*line) *line = xrealloc(NULL, *cap = 256, "line");
    (*line)[too_long ? 0 : n] = 0;
    return too_long ? -1 : 1;
}
