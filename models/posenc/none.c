// models/posenc/none.c — pe.kind=none: no position information (every hook absent).
#include "encoding.h"

const posenc_kind posenc_none = {.name = "none", .description = "no position information", .positional = 0, .resizable = 1, .grid_ok = 1, .sequence_ok = 1, .crosscheck_ok = 1, .timm_vit = 1};
