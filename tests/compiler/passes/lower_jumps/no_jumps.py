# lower_jumps: a body without jumps comes out as it went in.
# RUN: lower_jumps
# CHECK: ; after lower_jumps
# CHECK-NEXT: kernel k(x.0: array(float32)) -> None:
# CHECK-NEXT:   var i.1: int32
# CHECK-NEXT:   i.1 = tid()
# CHECK-NEXT:   x.0[i.1] = (x.0[i.1] * 2:float32)
import weft as wp

@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * 2.0
