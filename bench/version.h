// bench/version.h — the commit this binary was built from (the Makefile generates its
// definition in build/git_commit.c, rewritten whenever HEAD or its -dirty mark changes):
// recorded in every run file (/git_commit) and bench result ("commit").
#ifndef POSBENCH_VERSION_H
#define POSBENCH_VERSION_H

extern const char posbench_git_commit[];

// The release this source tree calls itself (`posbench --version`); the commit above names the
// exact source of a build.
#define POSBENCH_VERSION "0.1.0"

#endif
