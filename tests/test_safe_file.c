// tests/test_safe_file.c — core/safe_file.h, the one rule for writing and reading files by path,
// on a table of hostile paths: a symbolic link (to a victim file and to /dev/full), a FIFO, a
// directory, /dev/null and /dev/full themselves, a missing directory, an oversize file. Each
// writer (atomic write, rename of a finished file, in-place update) must refuse with
// SAFE_REFUSED naming the path and leave the victim's bytes and the devices as they were; each
// reader must refuse without blocking (an alarm fails a hang) and within its cap. Also: an
// atomic write replaces a regular file and leaves no temporary file; two writers of one path
// use two temporary names; a line past the cap is skipped and the next one read; a temporary
// tree is removed without following the links in it.
#include "testing.h"
#include "../core/safe_file.h"
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_dir[256];

static const char *at(const char *name) { // a new string each call (kept in the tables below; a test leaks them)
    char *p = malloc(512);
    if (!p) abort();
    snprintf(p, 512, "%s/%s", g_dir, name);
    return p;
}

static int victim_intact(void) {
    char text[64] = "";
    FILE *f = fopen(at("victim"), "r");
    if (!f) return 0;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    return !strcmp(text, "victim bytes\n");
}

static int devices_intact(void) {
    struct stat a, b;
    return stat("/dev/null", &a) == 0 && S_ISCHR(a.st_mode) && stat("/dev/full", &b) == 0 && S_ISCHR(b.st_mode);
}

// Files in g_dir whose name starts with '.' (temporary names left behind).
static int hidden_files(void) {
    DIR *d = opendir(g_dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    if (d) closedir(d);
    return n;
}

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "FAIL safe_file: a call blocked for 10 s (a FIFO opened blocking)\n";
    if (write(1, msg, sizeof msg - 1) < 0) {}
    _exit(1);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/posbench-safe.XXXXXX");
    if (!mkdtemp(g_dir)) {
        test_fail("safe_file: scratch directory", "mkdtemp failed");
        return 1;
    }
    signal(SIGALRM, on_alarm);
    alarm(10);
    FILE *v = fopen(at("victim"), "w");
    if (!v || fputs("victim bytes\n", v) < 0 || fclose(v) != 0) {
        test_fail("safe_file: victim file", "cannot write it");
        return 1;
    }
    int setup = symlink(at("victim"), at("link")) | symlink("/dev/full", at("devlink")) | mkfifo(at("fifo"), 0600) |
                mkdir(at("dir"), 0700);
    if (setup != 0) {
        test_fail("safe_file: hostile paths", "cannot make them");
        return 1;
    }
    int root = geteuid() == 0;
    const struct {
        const char *path, *why;
        int root_only;
    } hostile[] = {
        {at("link"), "is a symbolic link", 0},    {at("devlink"), "is a symbolic link", 0},
        {at("fifo"), "is a FIFO (named pipe)", 0}, {at("dir"), "is a directory", 0},
        {"/dev/null", "is a character device", 1}, {"/dev/full", "is a character device", 1},
        {at("missing/x"), "the directory must exist", 0},
    };
    char err[1200];
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        const char *p = hostile[i].path;
        if (hostile[i].root_only && !root) {
            test_skip("safe_file: writing a device node", "not root (only root could replace %s)", p);
            continue;
        }
        int w = safe_write_file(p, "new\n", 4, err, sizeof err);
        char name[200];
        snprintf(name, sizeof name, "safe_write_file refuses %s", p);
        test_check(name, w == SAFE_REFUSED && strstr(err, p) && strstr(err, hostile[i].why) && victim_intact() && devices_intact() &&
                   hidden_files() == 0, "rc %d: %s", w, err);
        FILE *tmp = fopen(at("done.tmp"), "w");
        if (tmp) fputs("complete\n", tmp), fclose(tmp);
        int r = safe_rename_over(at("done.tmp"), p, err, sizeof err);
        struct stat st;
        snprintf(name, sizeof name, "safe_rename_over refuses %s and keeps the finished file", p);
        test_check(name, r == SAFE_REFUSED && strstr(err, p) && victim_intact() && devices_intact() && stat(at("done.tmp"), &st) == 0,
                   "rc %d: %s", r, err);
        unlink(at("done.tmp"));
        int fd = -1, u = safe_open_update(p, O_WRONLY | O_CREAT | O_APPEND, &fd, err, sizeof err);
        snprintf(name, sizeof name, "safe_open_update refuses %s", p);
        test_check(name, u == SAFE_REFUSED && fd < 0 && victim_intact() && devices_intact(), "rc %d: %s", u, err);
        if (fd >= 0) close(fd);
    }
    // Readers: never block, regular files only, within the cap.
    const char *reads[] = {at("fifo"), at("dir"), "/dev/zero", at("link")};
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
        char *text = NULL;
        size_t n;
        int follow = i == 3 ? SAFE_NOFOLLOW : SAFE_FOLLOW;
        int r = safe_read_file(reads[i], 1 << 20, follow, &text, &n, NULL, err, sizeof err);
        char name[200];
        snprintf(name, sizeof name, "safe_read_file refuses %s%s without blocking", reads[i], i == 3 ? " (NOFOLLOW)" : "");
        test_check(name, r == SAFE_REFUSED && !text && strstr(err, reads[i]), "rc %d: %s", r, err);
        free(text);
    }
    char *text = NULL;
    size_t n = 0;
    int r = safe_read_file(at("link"), 1 << 20, SAFE_FOLLOW, &text, &n, NULL, err, sizeof err);
    test_check("safe_read_file follows a link to a regular file when asked (user-given paths)",
               r == SAFE_OK && n == 13 && text && !strcmp(text, "victim bytes\n"), "rc %d: %s", r, err);
    free(text), text = NULL;
    r = safe_read_file(at("victim"), 12, SAFE_FOLLOW, &text, &n, NULL, err, sizeof err);
    test_check("safe_read_file refuses a file past its cap before reading (13 bytes, cap 12)",
               r == SAFE_REFUSED && !text && strstr(err, "13 bytes is more than the 12"), "rc %d: %s", r, err);
    int missing = 0;
    r = safe_read_file(at("absent"), 12, SAFE_FOLLOW, &text, &n, &missing, err, sizeof err);
    test_check("safe_read_file: a missing file is said as missing", r != SAFE_OK && missing == 1, "rc %d missing %d", r, missing);

    // Writing: a regular file is replaced atomically, nothing left behind; two writers, two names.
    r = safe_write_file(at("out.txt"), "one\n", 4, err, sizeof err);
    int r2 = safe_write_file(at("out.txt"), "two\n", 4, err, sizeof err);
    char got[16] = "";
    FILE *f = fopen(at("out.txt"), "r");
    if (f) got[fread(got, 1, sizeof got - 1, f)] = 0, fclose(f);
    test_check("safe_write_file creates, then replaces a regular file; no temporary file left",
               r == SAFE_OK && r2 == SAFE_OK && !strcmp(got, "two\n") && hidden_files() == 0, "rc %d %d, text '%.3s', %d hidden",
               r, r2, got, hidden_files());
    safe_out a, b;
    int ra = safe_out_begin(&a, at("both.txt"), err, sizeof err), rb = safe_out_begin(&b, at("both.txt"), err, sizeof err);
    int distinct = ra == SAFE_OK && rb == SAFE_OK && strcmp(a.tmp, b.tmp) != 0;
    char tmp_a[4300], tmp_b[4300];
    snprintf(tmp_a, sizeof tmp_a, "%s", a.tmp), snprintf(tmp_b, sizeof tmp_b, "%s", b.tmp);
    if (ra == SAFE_OK) fputs("a\n", a.f);
    if (rb == SAFE_OK) fputs("b\n", b.f);
    int ca = ra == SAFE_OK ? safe_out_commit(&a, err, sizeof err) : -1, cb = rb == SAFE_OK ? safe_out_commit(&b, err, sizeof err) : -1;
    test_check("two writers of one path at once: two temporary names, both commit, the last one wins whole",
               distinct && ca == SAFE_OK && cb == SAFE_OK && hidden_files() == 0, "rc %d %d, tmp %s / %s", ca, cb, tmp_a, tmp_b);

    // Lines: one past the cap is skipped whole (-1), the next one is read.
    f = fopen(at("lines"), "w+");
    if (f) {
        fputs("short\n", f);
        for (int i = 0; i < 3000; i++) fputc('x', f);
        fputs("\nafter\nlast-without-newline", f);
        rewind(f);
    }
    char *line = NULL;
    size_t cap = 0;
    int l1 = f ? safe_read_line(f, &line, &cap, 1024) : 9;
    int s1 = l1 == 1 && !strcmp(line, "short");
    int l2 = f ? safe_read_line(f, &line, &cap, 1024) : 9;
    int l3 = f ? safe_read_line(f, &line, &cap, 1024) : 9;
    int s3 = l3 == 1 && !strcmp(line, "after");
    int l4 = f ? safe_read_line(f, &line, &cap, 1024) : 9;
    int s4 = l4 == 1 && !strcmp(line, "last-without-newline");
    int l5 = f ? safe_read_line(f, &line, &cap, 1024) : 9;
    test_check("safe_read_line: a 3000-byte line past a 1024 cap is skipped (-1), the lines around it read",
               s1 && l2 == -1 && s3 && s4 && l5 == 0, "%d %d %d %d %d", l1, l2, l3, l4, l5);
    free(line);
    if (f) fclose(f);

    // Removing a temporary tree: every entry goes (files, a FIFO, a nested folder, links), the
    // targets of its links stay (a link to the victim file, one to the folder holding it).
    int made = mkdir(at("tree"), 0700) | mkdir(at("tree/sub"), 0700) | symlink(at("victim"), at("tree/sub/to-victim")) |
               symlink(g_dir, at("tree/to-dir")) | mkfifo(at("tree/fifo"), 0600);
    FILE *t = fopen(at("tree/sub/file"), "w");
    made |= !t || fputs("x\n", t) < 0 || fclose(t) != 0;
    int rt = made ? -1 : safe_remove_tree(at("tree"), err, sizeof err);
    struct stat gone;
    test_check("safe_remove_tree removes a tree with a FIFO and links in it, never what the links point to",
               rt == SAFE_OK && lstat(at("tree"), &gone) != 0 && victim_intact() && stat(g_dir, &gone) == 0, "setup %d, rc %d: %s",
               made, rt, rt ? err : "");
    rt = safe_remove_tree(at("no-such-tree"), err, sizeof err);
    test_check("safe_remove_tree on a missing folder: SAFE_IO naming it", rt == SAFE_IO && strstr(err, "no-such-tree"),
               "rc %d: %s", rt, err);
    alarm(0);
    if (safe_remove_tree(g_dir, err, sizeof err) != SAFE_OK) fprintf(stderr, "%s\n", err);
    return test_exit_code();
}
