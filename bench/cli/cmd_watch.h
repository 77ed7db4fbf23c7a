// bench/cli/cmd_watch.h — `posbench watch DIR` (bench/cli/cmd_watch.c).
#pragma once

int cmd_watch(int argc, char **argv);
