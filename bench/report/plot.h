// bench/report/plot.h — `posbench plot DIR [--only KIND]`: figures from the run files below DIR.
// For each figure it writes a data file DIR/figures/data/<name>.dat and runs gnuplot on
// plots/<kind>.gp three times (term='png', 'svg', 'pdf'), giving DIR/figures/<name>.png, .svg
// and .pdf. Names: "<experiment>_<stage>_<what>" ("<stage>_<what>" without an experiment):
// <metric>-vs-<axis> (the axis key's last dotted part, the whole key with '-' for '.' when two
// axes end alike), <group>-<column>-vs-<x> for curves, and for one configuration's figure its
// axis values ("relmap_eta-0.5_seed0", "samples_kind-abs_seed0", "spatial-W_arch-gmlp_seed0");
// never a run id; "-2" appended if two figures would share a name. Figures of an earlier plot
// that this one (without --only) does not draw are removed (their data files too).
// Every figure states n; error bars and curve bands are the mean's 95% CI over the done seeds
// (Student t, n - 1 df; none where n = 1). A figures: entry's label:, xlabel:, ylabel: replace the
// made-up title and axis labels.
// Variables go to gnuplot with -e; each script's header names the ones it takes. Text from files
// reaches gnuplot only through gnuplot.h's escapers (one line; a data string never ends early).
// Runs: those `posbench report` counts (run_select.h; the others named on stderr). A figure the
// experiment file lists that draws nothing is a warning naming its entry (file:line), kind and
// stage.
//
// Kinds and what is made by default (per stage, grouping as in bench/results/results_read.h):
//   metric_vs_axis  for each axis: final top1 (%) of every configuration against the axis,
//                   the mean over the `done` seeds with its 95% CI as error bars; one series per
//                   assignment of the other axes, offset sideways so bars never overlap.
//                   Categorical x (points at the categories, not joined; tics only there) when
//                   a value is not a number or the values are at most 5 whole numbers (patch
//                   size, width); else numeric x, tics at the values, log x when all are > 0 and
//                   span a factor >= 100.
//   curves          train/loss vs train/step and eval/top1 (%) vs eval/epoch, one line per
//                   configuration in rows binned to at most 1000 points: per bin the mean over
//                   the seeds of each seed's mean (a diverged seed stops contributing) in a
//                   shaded band, its 95% CI; n in the legend.
//   heatmap         for each configuration, its lowest-seed run that has /attention/relmap
//                   (L, H, a, b): an L x H grid of maps, one colour range shared by every
//                   panel of every heatmap of that dataset in the stage. relmap's axes are
//                   offsets (key - query) centred on 0; other 4-D arrays use indices.
//   image_grid      for each configuration, its lowest-seed run with /samples: one row per
//                   dataset ("original" first, then name order), up to 8 images each. A dataset is (H, W) one image,
//                   (N, H, W) grey images, (N, C, H, W) or (N, H, W, C) with C in {1, 3}.
//                   Grey values are mapped to 0..255 by the run's min/max over all its
//                   samples, RGB likewise per channel set; NaN is mid grey. With other
//                   stages named (YAML `with: [a, b]`), their
//                   run of the same seed (else their first with /samples) adds its rows under
//                   this stage's, labelled "<stage>: <dataset>"; a dataset equal to a row
//                   already drawn (the shared originals) is drawn once; one range for all.
//   spatial_weights for each configuration, its lowest-seed run with /spatial/W (L, T, T)
//                   (gMLP, aMLP): one row of panels per block. On an image's token grid (the
//                   /spatial rows, cols, t0 attributes) the rows of W of four query tokens
//                   (top-left, top-centre, centre, bottom-right) reshaped to the grid (gMLP
//                   Fig. 3); on a sequence W itself, query down, key across (Fig. 4). Tokens
//                   before the grid (cls) are left out; the colour range is the run's min/max.
//   cls_attention   per stage (bench/report/plot_views.c): one row per (view image, method), up
//                   to 4 images of /views (docs/views.md): the image in pixel units, then the last
//                   block's [CLS] attention of each head, every patch a p x p block (nearest), each
//                   map min-max scaled, viridis. The methods: each configuration's lowest-seed run
//                   with /views/cls_attention, then (YAML `with: [a, b]`) each named stage's run of
//                   the same seed (else its first with the data). Column names under the grid.
//   key_pca         the same rows; after the image, one cell per block, shallow to deep: the
//                   /views/key_pca colours (keys' components 1-3 as red, green, blue).
// Which figures: the `figures:` list of the experiment file `posbench run` keeps,
// DIR/<experiment>/experiment.yaml (or DIR/experiment.yaml), checked by the figure-kind registry
// (bench/experiment/figure_kinds.h: kind, the keys it takes, its rules; an unknown key is bad
// input naming file:line:col); results folders written before issue 28: figures.tsv there or in
// DIR (lines kind<TAB>stage<TAB>metric<TAB>axis); without either, every kind. metric is a
// /final attribute (metric_vs_axis, default top1; final.top1 in YAML), "group/column" such as
// eval/top5 (curves, default both above; eval.top5 in YAML), or an /attention dataset (heatmap,
// default relmap); x selects the axis of metric_vs_axis (or a final metric); with lists
// image_grid's other stages. --only KIND keeps one kind.
// Exit status: 0 ok (also when nothing applies: it says so); 1 gnuplot failed (its stderr
// is printed) or a file could not be written; 2 bad input (no DIR, no *.h5 under it, bad
// --only, figures: or figures.tsv, gnuplot missing: package gnuplot-nox, plots/ not found).
#pragma once

int cmd_plot(int argc, char **argv); // argv: the arguments after "plot"
void plot_help(void);
