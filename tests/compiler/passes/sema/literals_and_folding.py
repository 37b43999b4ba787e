# sema: literals take the other operand's type, constants fold (Warp's // and %), `+=` on an
# array element is an atomic add.
# RUN: sema
# CHECK: ; after sema
# CHECK-NEXT: kernel k(a.0: array(float64), c.1: array(int32)) -> None:
# CHECK-NEXT:   var i.2: int32
# CHECK-NEXT:   i.2 = tid()
# CHECK-NEXT:   a.0[i.2] = ((a.0[i.2] * 2:float64) + 0.10000000000000001:float64)
# CHECK-NEXT:   c.1[i.2] = 0:int32
# CHECK-NEXT:   atomic_add(c.1[0:int32], 1:int32)
import weft as wp

N = wp.constant(4)

@wp.kernel
def k(a: wp.array(dtype=wp.float64), c: wp.array(dtype=int)):
    i = wp.tid()
    a[i] = a[i] * 2 + 0.1
    c[i] = N // 3 - 7 % 2
    c[0] += 1
