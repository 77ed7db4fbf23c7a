// tests/parity/families.h — the parity harness's op families, one FAMILY(name) per case file
// tests/parity/cases_<name>.c (which defines parity_cases_<name>[] and parity_cases_<name>_count).
// An X-macro list read by #include (no include guard): the includer defines FAMILY. Adding a
// family is its case file plus one line here (tests/parity/parity.h).
FAMILY(memory)
FAMILY(dense)
FAMILY(bf16)
FAMILY(tokens)
FAMILY(posenc)
FAMILY(mixing)
FAMILY(losses)
FAMILY(dino)
FAMILY(reduce)
FAMILY(optim)
FAMILY(attention)
FAMILY(kernels_v2)
FAMILY(linear_lt)
FAMILY(attention_bf16)
FAMILY(attention_routes)
