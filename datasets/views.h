// datasets/views.h — augmented views of an image batch for contrastive (SimCLR) and
// self-distillation (DINO) pretraining, following torchvision's transforms on float tensors.
// A view of image b is: RandomResizedCrop (bilinear, antialias=False) to size x size ->
// RandomHorizontalFlip -> RandomApply(ColorJitter) -> RandomGrayscale -> RandomApply(GaussianBlur)
// -> RandomSolarize, all in pixel space [0, 1] (pixel/255), then (x - mean)/std per channel.
// That is SimCLR's and DINO's order (DINO's main_dino.py DataAugmentationDINO; SimCLR's
// appendix A). Each transform names the torchvision function it follows and its formula where
// it is implemented (views_geometry.c, views_color.c); views_draw.c draws the parameters.
//
// Random draws: the counter RNG (core/rng.h) at rng_stream_make(seed, RNG_VIEWS, epoch, step, b)
// with b the image's position in the batch, its block counter starting at
// (view << 24) | (part << 20) for view index `view` (0..255) and transform part (view_part), so
// every draw is a function of (seed, epoch, step, b, view, part) only: views do not depend on
// thread count, another view's or another transform's settings, or what was drawn before (a
// resumed run at (epoch, step) draws the same).
//
// Files: views_config.c (presets, checks), views_draw.c (parameters), views_geometry.c (crop +
// resize, flip, blur), views_color.c (jitter, grayscale, solarize), views_batch.c (one view,
// a batch of views).
#pragma once
#include "dataset.h"
#include "../core/rng.h"
#include <stddef.h>
#include <stdint.h>

enum { VIEWS_MAX = 16,        // views in one view_set
       VIEW_INDEX_MAX = 256 }; // view indices address RNG blocks (view << 24): 0..255

// Which RNG block range a transform draws from (block counter (view << 24) | (part << 20)).
typedef enum {
    VIEW_PART_CROP = 0,      // RandomResizedCrop: up to 10 attempts x 2 uniforms, then 2 offsets
    VIEW_PART_FLIP = 1,      // 1 uniform
    VIEW_PART_JITTER = 2,    // apply uniform, the order (permutation of 4), then 4 factors
    VIEW_PART_GRAYSCALE = 3, // 1 uniform
    VIEW_PART_BLUR = 4,      // apply uniform, then sigma
    VIEW_PART_SOLARIZE = 5,  // 1 uniform
} view_part;

// One kind of view (e.g. SimCLR's view, DINO's first global crop, DINO's local crop).
// Ranges are [min, max]; probabilities in [0, 1] (0 turns a transform off).
typedef struct {
    int size;                       // output side in pixels: views are (C, size, size)
    float scale[2];                 // RandomResizedCrop scale: crop area / image area
    float ratio[2];                 // RandomResizedCrop ratio: crop width / height, log-uniform
    float hflip_p;                  // RandomHorizontalFlip p
    float jitter_p;                 // RandomApply(ColorJitter, p)
    // ColorJitter factor ranges (torchvision ColorJitter._check_input of a number x gives
    // brightness/contrast/saturation [max(0, 1-x), 1+x] and hue [-x, x]); a range {1, 1}
    // ({0, 0} for hue) leaves that adjustment out, as torchvision's None. Saturation and hue
    // change nothing on 1-channel images (torchvision: "Match PIL behaviour").
    float brightness[2], contrast[2], saturation[2], hue[2];
    float grayscale_p;              // RandomGrayscale p (1-channel images: no change)
    float blur_p;                   // RandomApply(GaussianBlur, p)
    int blur_kernel;                // GaussianBlur kernel_size: odd, >= 1, kernel/2 < size
    float blur_sigma[2];            // GaussianBlur sigma range
    float solarize_p;               // RandomSolarize p
    float solarize_threshold;       // RandomSolarize threshold in [0, 1]: pixels >= it inverted
} view_config;

// The views one objective takes of each image: view v of an image uses config[v].
typedef struct {
    int count;                      // 1..VIEWS_MAX
    view_config config[VIEWS_MAX];
} view_set;

// What one view drew: the crop box in source pixels (rows top..top+height-1, columns
// left..left+width-1), and each transform's decision and factors.
typedef struct {
    int top, left, height, width;   // RandomResizedCrop.get_params' (i, j, h, w)
    int crop_attempts;              // attempts drawn (1..10); 11 = the centre-crop fallback
    int flip;
    int jitter;                     // 1: ColorJitter applied
    int order[4];                   // its fn_idx: 0 brightness, 1 contrast, 2 saturation, 3 hue
    float brightness, contrast, saturation, hue; // factors (1, 1, 1, 0 where a range is off)
    int grayscale, blur, solarize;
    float sigma;                    // blur sigma (0 when blur is 0)
} view_params;

// ---- presets (views_config.c) ----
// SimCLR (Chen et al. 2020, appendix A; torchvision recipe): crop scale [0.08, 1], ratio
// [3/4, 4/3]; flip 0.5; RandomApply(ColorJitter(0.8s, 0.8s, 0.8s, 0.2s), p=0.8) with colour
// strength s (1 on ImageNet, 0.5 on CIFAR; s in (0, 2.5] so hue stays within 0.5); grayscale 0.2;
// blur 0.5 with kernel 10% of the size (odd, at least 3) and sigma [0.1, 2]; no solarisation.
void view_config_simclr(view_config *c, int size, float strength);
// DINO (Caron et al. 2021, main_dino.py DataAugmentationDINO): flip 0.5; RandomApply(ColorJitter
// (0.4, 0.4, 0.2, 0.1), p=0.8); grayscale 0.2; blur sigma [0.1, 2]. Global crops: scale
// [0.4, 1]; the first blurs always (p 1.0), the second with p 0.1 and solarises with p 0.2
// (threshold 128/255: PIL's solarize of uint8 at 128). Local crops: scale [0.05, 0.4], blur 0.5.
// DINO blurs with PIL's radius = sigma (no kernel size); here a kernel of 10% of the size (odd,
// at least 3), as SimCLR. DINO resizes bicubically (PIL); here bilinearly (torchvision's default).
void view_config_dino_global(view_config *c, int size, int second);
void view_config_dino_local(view_config *c, int size);
// Sets: SimCLR two views of one config; DINO 2 global views (size global_size) then
// `locals` local views (local_size), 2 + locals <= VIEWS_MAX.
void view_set_simclr(view_set *s, int size, float strength);
void view_set_dino(view_set *s, int global_size, int local_size, int locals);
// NULL when c can be applied to C x H x W images, else a static message naming the field.
const char *view_config_check(const view_config *c, int C, int H, int W);

// ---- parameters (views_draw.c) ----
// Draws view `view` of image b at (seed, epoch, step) into *p (see the RNG note above).
void view_draw(const view_config *c, int H, int W, uint32_t seed, uint32_t epoch, uint32_t step,
               int b, int view, view_params *p);
// RandomResizedCrop.get_params from stream s: for up to 10 attempts, u_a, u_r uniform;
// target_area = H·W·(scale0 + u_a·(scale1 - scale0)), aspect = exp(log r0 + u_r·(log r1 - log r0)),
// w = round(sqrt(target_area·aspect)), h = round(sqrt(target_area/aspect)) (round half to even,
// as Python's round); if 0 < w <= W and 0 < h <= H: top = rng_below(H - h + 1), left =
// rng_below(W - w + 1). Else the fallback: in_ratio = W/H; < r0: w = W, h = round(w/r0);
// > r1: h = H, w = round(h·r1); otherwise the whole image; top = (H-h)/2, left = (W-w)/2.
// trace (20 floats or NULL) receives each attempt's drawn (scale, log aspect) pair, the values
// torch's two uniform_ calls return in get_params (tests replay them through torchvision).
void view_draw_crop(const view_config *c, int H, int W, rng_stream *s, view_params *p, float *trace);

// ---- transforms with fixed parameters (views_geometry.c, views_color.c) ----
// Images are (C, H, W) floats in [0, 1] (C = 1 or 3) unless said otherwise.
// torchvision resized_crop(img, top, left, h, w, [S, S], BILINEAR, antialias=False):
// crop (C, h, w) of src (C, H, W), then F.interpolate bilinear, align_corners=False, to dst (C, S, S).
void view_resized_crop(const float *src, int C, int H, int W, int top, int left, int h, int w,
                       int S, float *dst);
void view_hflip(float *x, int C, int H, int W);                     // in place
void view_gaussian_blur(float *x, int C, int H, int W, int kernel, float sigma, float *scratch);
// scratch: C·H·W floats
void view_adjust_brightness(float *x, int C, int H, int W, float factor);
void view_adjust_contrast(float *x, int C, int H, int W, float factor);
void view_adjust_saturation(float *x, int C, int H, int W, float factor);
void view_adjust_hue(float *x, int C, int H, int W, float factor);  // factor in [-0.5, 0.5]
void view_grayscale(float *x, int C, int H, int W);                 // rgb_to_grayscale, C outputs
void view_solarize(float *x, int C, int H, int W, float threshold);

// ---- views (views_batch.c) ----
// Floats of scratch view_apply needs: C·H·W (the source in [0, 1]) + C·size·size.
size_t view_scratch_floats(const view_config *c, int C, int H, int W);
// One view of one image with drawn parameters p: src (C, H, W) uint8 pixels -> dst (C, size,
// size) in [0, 1], not normalised. scratch: view_scratch_floats floats.
void view_apply(const view_config *c, const view_params *p, const uint8_t *src, int C, int H, int W,
                float *dst, float *scratch);
// View `view` (config set->config[view]) of the batch: images (B, C, size, size) normalised as
// (x - mean)/std per channel (the dataset's), labels (B) (may be NULL). Image b draws
// view_draw(..., b, view); OpenMP parallel over b, bitwise the same at any thread count.
// Image datasets with 1 or 3 channels only (else a run-failed exit); a config that fails
// view_config_check is a bad-input exit.
void views_make_batch(const dataset *ds, const int *indices, int B, const view_set *set, int view,
                      uint32_t seed, uint32_t epoch, uint32_t step, float *images, int32_t *labels);
