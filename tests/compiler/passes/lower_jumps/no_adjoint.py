# lower_jumps: only bodies that an adjoint reverses are lowered; a kernel declared with
# enable_backward=False keeps its `return` (the forward code generator prints it as is).
# RUN: lower_jumps,codegen
# CHECK: ; after lower_jumps
# CHECK-NOT: kernel k
# CHECK: ; after codegen
# CHECK: return;
import weft as wp

@wp.kernel(enable_backward=False)
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    if x[i] < 0.0:
        return
    x[i] = 1.0
