// tests/test_mlm.c — byte-level masked language modelling: the text loader (datasets/text/),
// the byte-token embedding (model_config.vocab) and the MLM objective's draws and loss
// (objectives/mlm/).
// - UTF-8 validation on enumerated valid and invalid byte strings (overlong forms, surrogates,
//   above U+10FFFF, stray continuation bytes, a sequence cut by the end), with the offset.
// - text_load: the split (sequence i is validation iff i % 10 == 9; the tail dropped), the rows'
//   bytes, and the refusals (missing, empty, non-UTF-8 naming the byte offset, too short).
// - Masking: exactly round(0.15·L) positions chosen in every one of 4000 sequences, exactly
//   round(0.8k) / round(0.1k) / the rest masked / random / kept, each position chosen with
//   frequency 0.15 (within 5 binomial standard deviations), random bytes spread over 0..255
//   (chi-square), the same draws for the same address and for any batch split, other ones
//   for another step; targets hold the original byte at chosen positions only (cls row -1).
// - Gradients: every parameter of small Transformer (abs, rope 1D, relbias), gMLP (Toeplitz 1D)
//   and aMLP models on token input through the MLM loss (the token embedding included),
//   eps 3e-3, |err| <= 5e-4 + 3e-2·|g|, 8 entries per tensor (as tests/test_gmlp.c).
// - The loss ignores unchosen rows: changing their logits changes neither loss nor gradient.
#include "testing.h"
#include "model_testing.h"
#include "gradcheck.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/rng.h"
#include "../datasets/text/text.h"
#include "../models/model.h"
#include "../objectives/mlm/mlm.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const ops_backend *ops = &ops_cpu;

// ---------------------------------------------------------------- UTF-8
static void test_utf8(void) {
    struct { const char *bytes; size_t n; long long bad; const char *what; } cases[] = {
        {"plain ascii", 11, -1, "ascii"},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, -1, "2-, 3- and 4-byte forms"},
        {"\xef\xbf\xbf\xf4\x8f\xbf\xbf", 7, -1, "U+FFFF and U+10FFFF"},
        {"ab\xc0\x80", 4, 2, "overlong 2-byte NUL"},
        {"ab\xc1\xbf", 4, 2, "overlong C1"},
        {"x\xe0\x9f\xbf", 4, 1, "overlong 3-byte"},
        {"xy\xed\xa0\x80", 5, 2, "surrogate U+D800"},
        {"\xf0\x8f\xbf\xbf", 4, 0, "overlong 4-byte"},
        {"abc\xf4\x90\x80\x80", 7, 3, "above U+10FFFF"},
        {"abcd\x80", 5, 4, "stray continuation byte"},
        {"abcde\xff", 6, 5, "0xFF"},
        {"ab\xe2\x82", 4, 2, "cut by the end"},
        {"ab\xe2\x28\xa1", 5, 2, "bad continuation"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long long got = text_utf8_invalid_offset((const unsigned char *)cases[i].bytes, cases[i].n);
        char name[96];
        snprintf(name, sizeof name, "utf8 %s", cases[i].what);
        test_check(name, got == cases[i].bad, "first invalid byte %lld, expected %lld", got, cases[i].bad);
    }
}

// ---------------------------------------------------------------- the loader
static void write_file(const char *path, const void *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static void test_loader(void) {
    char dir[] = "/tmp/posbench-test-mlm-XXXXXX";
    if (!mkdtemp(dir)) {
        test_fail("text loader", "mkdtemp failed");
        return;
    }
    char path[256], err[1024];
    // 25 sequences of 4 bytes + a 3-byte tail: validation = sequences 9 and 19.
    snprintf(path, sizeof path, "%s/corpus.txt", dir);
    unsigned char bytes[103];
    for (int i = 0; i < 103; i++) bytes[i] = (unsigned char)('a' + i % 26);
    write_file(path, bytes, sizeof bytes);
    dataset train, test;
    int ok = text_load(&train, &(dataset_options){.path = path, .seq_len = 4}, "train", err, sizeof err) == 0 && text_load(&test, &(dataset_options){.path = path, .seq_len = 4}, "test", err, sizeof err) == 0;
    test_check("text split sizes", ok && train.n == 23 && test.n == 2, "train %d, validation %d (expected 23 and 2) %s",
               ok ? train.n : -1, ok ? test.n : -1, ok ? "" : err);
    if (ok) {
        int rows_ok = memcmp(test.pixels, bytes + 36, 4) == 0 && memcmp(test.pixels + 4, bytes + 76, 4) == 0 &&
                      memcmp(train.pixels + 9 * 4, bytes + 40, 4) == 0 && memcmp(train.pixels + 22 * 4, bytes + 96, 4) == 0;
        test_check("text split rows", rows_ok && train.vocab == TEXT_VOCAB && train.height == 4 && train.width == 1,
                   "validation = sequences 9, 19; train row 9 = sequence 10; last train row = sequence 24");
        int32_t tokens[8], labels[2];
        int idx[2] = {1, 0};
        dataset_make_batch(&test, idx, 2, NULL, 0, 0, 0, (float *)tokens, labels);
        int batch_ok = labels[0] == 0 && labels[1] == 0;
        for (int t = 0; t < 4; t++) batch_ok &= tokens[t] == bytes[76 + t] && tokens[4 + t] == bytes[36 + t];
        test_check("text batch token ids", batch_ok, "(B, L) int32 bytes of the rows asked for");
        dataset_free(&train);
        dataset_free(&test);
    }
    // Refusals, each naming the file.
    snprintf(path, sizeof path, "%s/missing.txt", dir);
    int rc = text_load(&train, &(dataset_options){.path = path, .seq_len = 4}, "train", err, sizeof err);
    test_check("text refuses a missing file", rc != 0 && strstr(err, path) && strstr(err, "cannot open"), "%s", err);
    snprintf(path, sizeof path, "%s/empty.txt", dir);
    write_file(path, "", 0);
    rc = text_load(&train, &(dataset_options){.path = path, .seq_len = 4}, "train", err, sizeof err);
    test_check("text refuses an empty file", rc != 0 && strstr(err, path) && strstr(err, "empty"), "%s", err);
    snprintf(path, sizeof path, "%s/latin1.txt", dir);
    memcpy(bytes + 57, "\xe9", 1); // a Latin-1 e-acute in the middle
    write_file(path, bytes, sizeof bytes);
    rc = text_load(&train, &(dataset_options){.path = path, .seq_len = 4}, "train", err, sizeof err);
    test_check("text refuses non-UTF-8 naming the byte offset", rc != 0 && strstr(err, path) && strstr(err, "byte offset 57"),
               "%s", err);
    snprintf(path, sizeof path, "%s/short.txt", dir);
    write_file(path, "abcdefgh", 8);
    rc = text_load(&train, &(dataset_options){.path = path, .seq_len = 4}, "train", err, sizeof err);
    test_check("text refuses a file too short for the split", rc != 0 && strstr(err, path) && strstr(err, "data.seq_len"),
               "%s", err);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) test_fail("text loader cleanup", "%s failed", cmd);
}

// ---------------------------------------------------------------- masking
static void fill_tokens(int32_t *tokens, int B, int L, unsigned tag) {
    rng_stream s = rng_stream_make(7, RNG_TEST, tag, 0, 0);
    for (int i = 0; i < B * L; i++) tokens[i] = (int32_t)rng_below(&s, 256);
}

static void test_masking(void) {
    const int B = 4000, L = 128, t0 = 1, T = L + t0;
    int k = mlm_chosen_count(L), masked, random;
    mlm_split(k, &masked, &random);
    test_check("mlm counts at L=128", k == 19 && masked == 15 && random == 2, "k %d (round(0.15*128) = 19), masked %d, random %d",
               k, masked, random);
    test_check("mlm counts at L=100 and L=3", mlm_chosen_count(100) == 15 && mlm_chosen_count(3) == 1, "k(100)=%d k(3)=%d",
               mlm_chosen_count(100), mlm_chosen_count(3));
    int32_t *orig = xmalloc((size_t)B * L * sizeof(int32_t), "t"), *tok = xmalloc((size_t)B * L * sizeof(int32_t), "t");
    int32_t *tgt = xmalloc((size_t)B * T * sizeof(int32_t), "t");
    uint8_t *act = xmalloc((size_t)B * L, "t");
    int perm[128];
    fill_tokens(orig, B, L, 1);
    memcpy(tok, orig, (size_t)B * L * sizeof(int32_t));
    mlm_corrupt(tok, tgt, act, B, L, t0, TEXT_MASK_TOKEN, 3, 1, 2, 0, perm);
    long per_position[128] = {0}, byte_hist[256] = {0}, random_total = 0;
    int exact = 1, consistent = 1;
    for (int b = 0; b < B; b++) {
        int c[4] = {0};
        if (tgt[(size_t)b * T] != -1) consistent = 0; // the cls row
        for (int n = 0; n < L; n++) {
            size_t i = (size_t)b * L + n;
            int a = act[i], target = tgt[(size_t)b * T + t0 + n];
            c[a]++;
            if (a != MLM_NOT_CHOSEN) per_position[n]++;
            if (a == MLM_NOT_CHOSEN) consistent &= target == -1 && tok[i] == orig[i];
            else consistent &= target == orig[i];
            if (a == MLM_MASKED) consistent &= tok[i] == TEXT_MASK_TOKEN;
            if (a == MLM_KEPT) consistent &= tok[i] == orig[i];
            if (a == MLM_RANDOM) consistent &= tok[i] >= 0 && tok[i] < 256, byte_hist[tok[i]]++, random_total++;
        }
        exact &= c[1] + c[2] + c[3] == k && c[1] == masked && c[2] == random && c[3] == k - masked - random;
    }
    test_check("mlm exact 15% and 80/10/10 in every sequence", exact, "%d sequences of %d: %d chosen, %d / %d / %d", B, L, k,
               masked, random, k - masked - random);
    test_check("mlm targets and corrupted tokens agree with the draws", consistent,
               "targets = original at chosen positions, -1 elsewhere and at cls; [MASK] = %d", TEXT_MASK_TOKEN);
    double p = (double)k / L, sd = sqrt(B * p * (1 - p)), worst = 0;
    for (int n = 0; n < L; n++) {
        double z = fabs(per_position[n] - B * p) / sd;
        worst = z > worst ? z : worst;
    }
    test_check("mlm every position chosen at rate 0.15", worst < 5.0, "worst |z| over %d positions %.2f (< 5)", L, worst);
    double chi = 0, expect = random_total / 256.0;
    for (int v = 0; v < 256; v++) chi += (byte_hist[v] - expect) * (byte_hist[v] - expect) / expect;
    // 255 degrees of freedom: mean 255, sd 22.6; 400 is beyond 6 sd.
    test_check("mlm random replacements uniform over bytes", chi < 400.0, "chi-square %.1f over %ld draws (255 dof, < 400)", chi,
               random_total);
    // Determinism and addressing.
    int32_t *tok2 = xmalloc((size_t)B * L * sizeof(int32_t), "t"), *tgt2 = xmalloc((size_t)B * T * sizeof(int32_t), "t");
    memcpy(tok2, orig, (size_t)B * L * sizeof(int32_t));
    mlm_corrupt(tok2, tgt2, NULL, B, L, t0, TEXT_MASK_TOKEN, 3, 1, 2, 0, perm);
    test_check("mlm same address, same draws", !memcmp(tok, tok2, (size_t)B * L * 4) && !memcmp(tgt, tgt2, (size_t)B * T * 4),
               "bitwise");
    memcpy(tok2, orig + (size_t)10 * L, (size_t)6 * L * sizeof(int32_t)); // sequences 10..15 as a batch of their own
    mlm_corrupt(tok2, tgt2, NULL, 6, L, t0, TEXT_MASK_TOKEN, 3, 1, 2, 10, perm);
    test_check("mlm draws independent of the batch split", !memcmp(tok2, tok + (size_t)10 * L, (size_t)6 * L * 4) &&
               !memcmp(tgt2, tgt + (size_t)10 * T, (size_t)6 * T * 4), "first_index 10 gives rows 10..15");
    memcpy(tok2, orig, (size_t)B * L * sizeof(int32_t));
    mlm_corrupt(tok2, tgt2, NULL, B, L, t0, TEXT_MASK_TOKEN, 3, 1, 3, 0, perm);
    test_check("mlm another step, other draws", memcmp(tgt, tgt2, (size_t)B * T * 4) != 0, "step 2 vs 3");
    free(orig); free(tok); free(tgt); free(act); free(tok2); free(tgt2);
}

// ---------------------------------------------------------------- gradients through the MLM loss
typedef struct { model *m; mlm_loss *loss; int32_t *tokens; int B; long chosen; } mlm_ctx;

static double mlm_model_loss(void *p) {
    mlm_ctx *c = p;
    memcpy(model_images(c->m), c->tokens, (size_t)c->B * c->m->N * sizeof(int32_t));
    return mlm_loss_forward(c->loss, model_forward(c->m, c->B, 0, (rng_addr){0}), c->B, c->chosen);
}

static void gradcheck_mlm_model(const char *label, model_config cfg) {
    const int B = 3;
    model m;
    model_create(&m, &cfg, ops, B, 11);
    test_model_perturb(&m, 0.1f, 40);
    mlm_loss loss;
    mlm_loss_create(&loss, ops, B, m.T, TEXT_BYTES);
    int32_t tokens[3 * 16];
    int perm[16];
    fill_tokens(tokens, B, m.N, 2);
    mlm_corrupt(tokens, loss.targets_host, NULL, B, m.N, m.t0, TEXT_MASK_TOKEN, 1, 0, 0, 0, perm);
    mlm_ctx c = {&m, &loss, tokens, B, (long)B * mlm_chosen_count(m.N)};
    mlm_model_loss(&c);
    ops->zero(m.grad, m.params.total);
    model_zero_act_grads(&m);
    mlm_loss_backward(&loss, model_dlogits(&m), B, c.chosen);
    model_backward(&m, B);
    gradcheck_tol tol = {3e-3, 5e-4, 3e-2, 8};
    char name[160];
    snprintf(name, sizeof name, "mlm %s", label);
    test_model_gradcheck_params(name, &m, &c, mlm_model_loss, tol);
    // Only rows of the tokens present get gradient in the embedding table ([MASK] among them).
    int i = tensor_table_find(&m.params, "token_embed.weight");
    const float *g = m.grad + m.params.items[i].offset;
    int present[TEXT_VOCAB] = {0}, rows_ok = 1;
    for (int t = 0; t < B * m.N; t++) present[tokens[t]] = 1;
    for (int v = 0; v < TEXT_VOCAB; v++) {
        int nonzero = 0;
        for (int d = 0; d < cfg.dim; d++) nonzero |= g[(size_t)v * cfg.dim + d] != 0.0f;
        rows_ok &= nonzero == present[v];
    }
    snprintf(name, sizeof name, "mlm %s token embedding gradient only on the ids present", label);
    test_check(name, rows_ok && present[TEXT_MASK_TOKEN], "[MASK] present: %d", present[TEXT_MASK_TOKEN]);
    mlm_loss_free(&loss);
    model_free(&m);
}

static void test_model_gradients(void) {
    model_config c = {.arch = "vit", .channels = 1, .image_size = 16, .vocab = TEXT_VOCAB, .patch = 1, .dim = 16, .depth = 2,
                      .heads = 2, .mlp_ratio = 2, .cls = 0, .pe_kind = "abs", .num_classes = TEXT_BYTES, .request.token_head = 1,
                      .request.token_outputs = TEXT_BYTES, .request.head_name = "mlm_head"};
    gradcheck_mlm_model("vit[abs]", c);
    test_model_set_pe(&c, "rope", "pe.rope_dims=1", NULL), c.cls = 1;
    gradcheck_mlm_model("vit[cls,rope1d]", c);
    test_model_set_pe(&c, "relbias", NULL), c.cls = 0;
    gradcheck_mlm_model("vit[relbias]", c);
    test_model_set_arch(&c, "gmlp", "model.sgu_toeplitz=true", "model.tiny_attn_dim=8", NULL), c.pe_kind = "none"; // Toeplitz 1D: token input
    gradcheck_mlm_model("gmlp[toeplitz1d]", c);
    test_model_set_arch(&c, "amlp", "model.sgu_toeplitz=true", "model.tiny_attn_dim=8", NULL);
    gradcheck_mlm_model("amlp[toeplitz1d]", c);
}

// Logits of unchosen rows do not matter.
static void test_loss_ignores_unchosen(void) {
    const int B = 2, L = 20, T = L, K = TEXT_BYTES;
    mlm_loss loss;
    mlm_loss_create(&loss, ops, B, T, K);
    int32_t tokens[40];
    int perm[20];
    fill_tokens(tokens, B, L, 3);
    mlm_corrupt(tokens, loss.targets_host, NULL, B, L, 0, TEXT_MASK_TOKEN, 1, 0, 0, 0, perm);
    float *logits = test_rnd((size_t)B * T * K, -2, 2, 5), *g1 = test_zeros((size_t)B * T * K), *g2 = test_zeros((size_t)B * T * K);
    long chosen = (long)B * mlm_chosen_count(L);
    double l1 = mlm_loss_forward(&loss, logits, B, chosen);
    mlm_loss_backward(&loss, g1, B, chosen);
    for (int r = 0; r < B * T; r++)
        if (loss.targets_host[r] < 0)
            for (int k = 0; k < K; k++) logits[(size_t)r * K + k] += 3.0f;
    double l2 = mlm_loss_forward(&loss, logits, B, chosen);
    mlm_loss_backward(&loss, g2, B, chosen);
    // The reference loss: mean over chosen rows of logsumexp - logit[target], in double.
    double ref = 0;
    for (int r = 0; r < B * T; r++) {
        int t = loss.targets_host[r];
        if (t < 0) continue;
        const float *z = logits + (size_t)r * K;
        double mx = z[0], s = 0;
        for (int k = 1; k < K; k++) mx = z[k] > mx ? z[k] : mx;
        for (int k = 0; k < K; k++) s += exp(z[k] - mx);
        ref += mx + log(s) - z[t];
    }
    ref /= chosen;
    test_check("mlm loss ignores unchosen rows", l1 == l2 && !memcmp(g1, g2, (size_t)B * T * K * sizeof(float)) &&
               fabs(l1 - ref) < 1e-5 * fabs(ref), "loss %.7f, after shifting unchosen logits %.7f, reference %.7f", l1, l2, ref);
    free(logits); free(g1); free(g2);
    mlm_loss_free(&loss);
}

int main(void) {
    posbench_set_threads(2);
    test_utf8();
    test_loader();
    test_masking();
    test_loss_ignores_unchosen();
    test_model_gradients();
    return test_exit_code();
}
