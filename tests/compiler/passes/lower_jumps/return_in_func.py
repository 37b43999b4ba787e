# lower_jumps: `return v` in a func becomes `ret_value = v; ret = true`, the enclosing loop tests
# ret, and what follows the loop is guarded. The kernel that calls the func has no jump: its body
# is printed unchanged.
# RUN: sema,lower_jumps
# CHECK: ; after sema
# CHECK: return x.0[i.2]
# CHECK: ; after lower_jumps
# CHECK: func first_negative(x.0: array(float32), n.1: int32) -> float32:
# CHECK: var ret_.3: bool
# CHECK-NEXT: var ret_value_.4: float32
# CHECK-NEXT: var brk_.5: bool
# CHECK-NEXT: i.2 = 0:int32
# CHECK-NEXT: brk_.5 = False
# CHECK-NEXT: while (((not brk_.5) and (not ret_.3)) and (i.2 < n.1)):
# CHECK-NEXT:   if (x.0[i.2] < 0:float32):
# CHECK-NEXT:     ret_value_.4 = x.0[i.2]
# CHECK-NEXT:     ret_.3 = True
# CHECK-NEXT:   if (not ret_.3):
# CHECK-NEXT:     i.2 = (i.2 + 1:int32)
# CHECK-NEXT: if (not ret_.3):
# CHECK-NEXT:   ret_value_.4 = 0:float32
# CHECK-NEXT:   ret_.3 = True
# CHECK-NEXT: kernel k(
# CHECK-NEXT: s.1[0:int32] = first_negative(x.0, n.2)
# CHECK-NOT: return
import weft as wp

@wp.func
def first_negative(x: wp.array(dtype=float), n: int) -> float:
    i = 0
    while i < n:
        if x[i] < 0.0:
            return x[i]
        i += 1
    return 0.0

@wp.kernel
def k(x: wp.array(dtype=float), s: wp.array(dtype=float), n: int):
    s[0] = first_negative(x, n)
