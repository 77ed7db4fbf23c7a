// core/ops_support.h — which ops a backend implements (ggml's supports_op, per op): an id per
// entry of core/ops_list.h, its name, the query, and a table for partial backends whose missing
// ops die naming themselves instead of crashing on a NULL pointer. device_backend
// (core/device.h) hands the trainer and `posbench bench` such a table when a backend is partial.
#pragma once
#include "ops.h"
#include <stddef.h>

// OPS_ID(linear_forward) is the id of ops_list.h's entry linear_forward; ids follow its order.
#define OPS_ID(op) OPS_ID_##op
typedef enum {
#define OP(ret, op, params, args) OPS_ID(op),
#include "ops_list.h"
    OPS_COUNT
} ops_id;

// The entry's name as ops_list.h spells it ("linear_forward"); NULL for an id out of range.
const char *ops_op_name(ops_id id);
// The id of the entry named `name`, or -1.
int ops_op_find(const char *name);
// 1 when backend b implements op `id` (its table entry is set), else 0.
int ops_supports(const ops_backend *b, ops_id id);
// How many ops b lacks; their names, comma-separated, into names (len bytes, truncated; may be
// NULL when len is 0).
int ops_missing(const ops_backend *b, char *names, size_t len);
// b when it implements every op; otherwise *storage filled with b's entries and, for each
// missing op, a function that dies (exit 1) with "backend 'B' does not implement op 'X'",
// and storage returned. storage must outlive every call through the result.
const ops_backend *ops_complete(const ops_backend *b, ops_backend *storage);
