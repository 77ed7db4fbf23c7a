// bench/run/runner.h — `posbench run` and `posbench slurm`: execute an experiment's runs.
#pragma once

// argv: the arguments after "run" / "slurm". Return the exit status.
int cmd_run(int argc, char **argv);
int cmd_slurm(int argc, char **argv);

// Validates a --device value (auto | cpu | cuda); anything the trainer cannot run on is bad
// input (exit 2) with a message that says why (no CUDA backend built, or the trainer not yet
// running on it).
void device_flag_validate(const char *value);
