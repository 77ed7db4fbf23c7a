// objectives/knn_probe.h — weighted k-nearest-neighbour probe of frozen features (DINO's
// kNN evaluation; MP3 Fig. 9, kNN accuracy layer by layer).
// Each test feature votes with its k most cosine-similar training features; neighbour j adds
// exp(sim_j / temperature) to the score of its label; the prediction is the class with the
// highest score. Similarities come from OpenBLAS sgemm on L2-normalised copies, a block of
// KNN_PROBE_BLOCK test rows at a time, so memory stays (KNN_PROBE_BLOCK, ntrain) floats plus
// the normalised training set (ntrain, D).
#pragma once
#include <stdint.h>

enum { KNN_PROBE_BLOCK = 256 }; // test rows per similarity block

// Top-1 accuracy in [0, 1] of the weighted kNN classifier on the test set.
//   train (ntrain, D), train_labels (ntrain); test (ntest, D), test_labels (ntest): row-major,
//   labels in [0, num_classes). Features are L2-normalised internally (a zero row stays zero:
//   similarity 0 to everything).
//   Ties in similarity go to the lower training index; ties in score to the lower class.
//   Scores are accumulated in double as exp((sim_j - sim_1) / temperature), sim_1 being the
//   best similarity of that test row: the same ranking as exp(sim_j / temperature), without
//   overflow for small temperatures.
//   top5: when not NULL, receives the fraction of test rows whose label is among the 5
//   highest-scoring classes (same tie rule; 1 when num_classes <= 5).
//   pred: when not NULL, (ntest) receives each test row's predicted class.
// The result does not depend on the OpenMP thread count (test rows are independent; the only
// reduction is an integer count).
// Errors: k outside [1, ntrain] or temperature not finite and > 0 exit 2 (die_input: probe
// settings are user input); bad sizes, NULL arrays, labels out of range or non-finite features
// exit 1 (die_fail).
double knn_probe_accuracy(const float *train, const int32_t *train_labels, int ntrain,
                          const float *test, const int32_t *test_labels, int ntest, int D,
                          int num_classes, int k, float temperature, double *top5,
                          int32_t *pred);
