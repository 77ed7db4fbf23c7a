// bench/runner.h — `posbench run` and `posbench slurm`: execute an experiment's runs.
#pragma once

// argv: the arguments after "run" / "slurm". Return the exit status.
int cmd_run(int argc, char **argv);
int cmd_slurm(int argc, char **argv);
