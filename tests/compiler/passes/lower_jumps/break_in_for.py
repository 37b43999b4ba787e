# lower_jumps: a `for` that may break becomes a `while` over an explicit counter, which advances
# before the body; its condition tests the brk flag (the step is a constant: no select).
# RUN: sema,lower_jumps
# CHECK: ; after sema
# CHECK: for i.4 in range(0:int32, n.2, 2:int32):
# CHECK: break
# CHECK: ; after lower_jumps
# CHECK: var brk_.5: bool
# CHECK-NEXT: var it_.6: int32
# CHECK-NEXT: var stop_.7: int32
# CHECK-NEXT: var step_.8: int32
# CHECK-NEXT: t.3 = 0:float32
# CHECK-NEXT: stop_.7 = n.2
# CHECK-NEXT: step_.8 = 2:int32
# CHECK-NEXT: it_.6 = 0:int32
# CHECK-NEXT: brk_.5 = False
# CHECK-NEXT: while ((not brk_.5) and (it_.6 < stop_.7)):
# CHECK-NEXT:   i.4 = it_.6
# CHECK-NEXT:   it_.6 = (it_.6 + step_.8)
# CHECK-NEXT:   if (x.0[i.4] > 10:float32):
# CHECK-NEXT:     brk_.5 = True
# CHECK-NEXT:   if (not brk_.5):
# CHECK-NEXT:     t.3 = (t.3 + x.0[i.4])
# CHECK-NEXT: s.1[0:int32] = t.3
# CHECK-NOT: break
import weft as wp

@wp.kernel
def k(x: wp.array(dtype=float), s: wp.array(dtype=float), n: int):
    t = 0.0
    for i in range(0, n, 2):
        if x[i] > 10.0:
            break
        t += x[i]
    s[0] = t
