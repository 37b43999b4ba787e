// Every Differentiable overload of the builtin table: its adjoint against central finite
// differences (fd_harness.h). The case list is generated from the table at build time, so a
// new differentiable builtin is checked without touching this file.
#include "fd_harness.h"

#define WEFT_FD_CASE(id, signature, name, fwd, adj, ...) \
    TEST(AdjointFD, id) { fd::check_case<__VA_ARGS__>(signature, name, fwd, adj); }
#include "fd_cases.inc"
#undef WEFT_FD_CASE
