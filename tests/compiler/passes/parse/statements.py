# parse: the syntax tree, printed back as Python (`weft compile --emit ast`).
# RUN: parse
# CHECK: ; after parse
# CHECK-NEXT: import weft as wp
# CHECK-NEXT: kernel k(a: wp.array(dtype=float)):
# CHECK-NEXT:     i = wp.tid()
# CHECK-NEXT:     if (a[i] > 0.0):
# CHECK-NEXT:         a[i] = (-a[i])
# CHECK-NEXT:     for j in range(3):
# CHECK-NEXT:         a[i] += 1.0
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    if a[i] > 0.0:
        a[i] = -a[i]
    for j in range(3):
        a[i] += 1.0
