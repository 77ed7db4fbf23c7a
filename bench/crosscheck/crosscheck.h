// bench/crosscheck/crosscheck.h — `posbench crosscheck EXPERIMENT.yaml --stage S [--match
// key=value ...]`: trains the selected runs of one stage (one per seed) with posbench and with
// an independent PyTorch trainer (bench/crosscheck/torch_train.py) on the same data, batch
// order, augmentation draws and initial weights (the crosscheck plan, bench/train/train_plan.c),
// and prints both sides' final top-1 (mean ± 95% CI over seeds) with an agreement verdict.
// Files: posbench's runs where `posbench run --out DIR` puts them
// (DIR/<experiment>/<stage>/<run-id>.h5, reused when done); the PyTorch side beside them in
// DIR/<experiment>/<stage>/crosscheck/<run-id>.{plan,torch,torch.log} (a finished .torch is
// reused). Verdict on the per-seed differences posbench − PyTorch (paired: seed k of both sides
// shares weights, batches and draws; a one-sample t-test on the n differences, df n − 1; README
// "posbench crosscheck"):
//   agree            TOST: the mean difference is inside ±margin (both one-sided tests at 0.05)
//   disagree         the two-sided paired t-test is significant at 0.05
//   inconclusive     neither (with the seeds the nearer margin bound would need)
// plus the parity of the first steps' training losses, seed by seed (identical inputs only
// when drop path is 0 and pe.kind is not cape: the two trainers draw those independently).
// Exit: 0 both sides trained (any verdict), 1 a training failed, 2 bad input.
#pragma once
#include <stddef.h>

int cmd_crosscheck(int argc, char **argv);
// The verdict line of a (posbench, n seeds) against b (PyTorch, n seeds) at the margin:
// "Δ +x points, 95% CI [lo, hi], paired t p = (two-sided), TOST p = at ±m: **agree** ..." /
// "**disagree** ..." / "**inconclusive** (needs N seeds)" / "inconclusive (1 seed)". a[k] and
// b[k] are the same seed.
void crosscheck_verdict(const double *a, const double *b, int n, double margin, char *out, size_t len);
