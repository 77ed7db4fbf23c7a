// models/posenc/none.c — pe.kind=none: no position information (every hook absent).
#include "encoding.h"

const posenc_kind posenc_none = {.name = "none"};
