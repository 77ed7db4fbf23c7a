// bench/crosscheck/crosscheck.h — `posbench crosscheck EXPERIMENT.yaml --stage S [--match
// key=value ...] [--init ours|torch]`: trains the selected runs of one stage (one per seed) with
// posbench and with an independent PyTorch trainer (bench/crosscheck/torch_train.py) on the same
// data, batch order and augmentation draws (the crosscheck plan, bench/train/train_plan.c), and
// prints both sides' final metric (mean ± 95% CI over seeds) with an agreement verdict.
// Initial weights: --init ours (default) the PyTorch side copies posbench's (in the plan);
// --init torch it initialises the model itself by timm's rules from a generator of its own
// (bench/crosscheck/torch_init.py; the patch projection by the run's model.embed_init), so a
// defect of posbench's init can show.
// Files: posbench's runs where `posbench run --out DIR` puts them
// (DIR/<experiment>/<stage>/<run-id>.h5, reused when done); the PyTorch side beside them in
// DIR/<experiment>/<stage>/crosscheck/<run-id>.{plan,torch,torch.log}, with --init torch
// <run-id>.init-torch.{plan,torch,torch.log}; a finished .torch is reused only when the init
// (and, --init torch, the embed_init) it names is this one's and its cache key — the script's
// content (and the *.py beside it), the interpreter and the plan (torch_result.h) — is this
// run's; every line of it is validated (ranges, step_losses = the plan's steps, no duplicate,
// no unknown key), a bad one refused naming FILE:LINE (exit 2). The PyTorch side writes
// <run-id>.torch.new, renamed over the result only when it validated, so a failed run never
// replaces a finished one.
// Verdict (docs/testing.md "posbench crosscheck"): --init ours on the per-seed differences posbench −
// PyTorch (paired: seed k of both sides shares weights, batches and draws; a one-sample t-test
// on the n differences, df n − 1); --init torch unpaired (each side's seeds from its own
// weights: Welch test, TOST at ±margin on it):
//   agree            TOST: the mean difference is inside ±margin (both one-sided tests at 0.05)
//   disagree         the two-sided test is significant at 0.05
//   inconclusive     neither (with the seeds it would need)
// Then each side's embedding RMS at initialisation (first batch; posbench's /init) and, --init
// ours, the parity of the first steps' training losses, seed by seed (identical inputs only
// when drop path is 0 and pe.kind is not cape: the two trainers draw those independently);
// --init torch has no parity (different weights) and prints the largest initial weight
// difference instead. Exit: 0 both sides trained (any verdict), 1 a training failed, 2 bad input.
#pragma once
#include <stddef.h>

int cmd_crosscheck(int argc, char **argv);
// --init ours: the verdict line of a (posbench, n seeds) against b (PyTorch, n seeds) at the
// margin: "Δ +x points, 95% CI [lo, hi], paired t p = (two-sided), TOST p = at ±m: **agree** ..."
// / "**disagree** ..." / "**inconclusive** (needs N seeds)" / "inconclusive (1 seed)". a[k] and
// b[k] are the same seed.
void crosscheck_verdict(const double *a, const double *b, int n, double margin, char *out, size_t len);
// --init torch: a (posbench, na seeds) against b (PyTorch, nb seeds), unpaired: the Welch
// difference mean(a) − mean(b) with its 95% CI (the two-sided test's: excludes 0 ⇔ disagree)
// and 90% CI (the TOST's: inside ±margin ⇔ agree), the two-sided p with the Welch df, the TOST
// p, and "**agree**" / "**disagree**" / "**inconclusive** (needs N seeds per side ...)", N the
// seeds per side for the TOST to show agreement when the true difference is 0 (80% power at the
// observed variances: sig_n_welch with the margin as the effect), or "inconclusive (1 seed)"
// when a side has fewer than 2.
void crosscheck_verdict_unpaired(const double *a, int na, const double *b, int nb, double margin, char *out, size_t len);
// The parity note of the first K training losses of one seed (posbench's, PyTorch's): "max D",
// the largest |ours − theirs| / max(1, |theirs|); "not comparable: step S's loss is nan on
// PyTorch" (or infinite, posbench, both sides) at the first non-finite loss, never a max that
// skipped it; "no steps to compare" when K is 0.
void crosscheck_parity_summary(const double *ours, const double *theirs, int K, char *out, size_t len);
