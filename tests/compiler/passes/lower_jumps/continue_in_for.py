# lower_jumps: a `continue` sets the loop's cont flag, which guards the rest of the body; a `for`
# that is only continued stays a `for`.
# RUN: sema,lower_jumps
# CHECK: ; after sema
# CHECK: for i.3 in range(0:int32, 4:int32, 1:int32):
# CHECK-NEXT:   if (x.0[i.3] < 0:float32):
# CHECK-NEXT:     continue
# CHECK-NEXT:   t.2 = (t.2 + x.0[i.3])
# CHECK: ; after lower_jumps
# CHECK: var cont_.4: bool
# CHECK: for i.3 in range(0:int32, 4:int32, 1:int32):
# CHECK-NEXT:   cont_.4 = False
# CHECK-NEXT:   if (x.0[i.3] < 0:float32):
# CHECK-NEXT:     cont_.4 = True
# CHECK-NEXT:   if (not cont_.4):
# CHECK-NEXT:     t.2 = (t.2 + x.0[i.3])
# CHECK-NEXT: s.1[0:int32] = t.2
# CHECK-NOT: continue
import weft as wp

@wp.kernel
def k(x: wp.array(dtype=float), s: wp.array(dtype=float)):
    t = 0.0
    for i in range(4):
        if x[i] < 0.0:
            continue
        t += x[i]
    s[0] = t
