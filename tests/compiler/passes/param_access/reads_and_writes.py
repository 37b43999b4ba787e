# param_access: loads read, stores write, an atomic used for its value reads and writes, an atomic
# add as a statement only writes; arrays passed to funcs and through locals count; an array that
# is not touched is not listed.
# RUN: param_access
# CHECK: ; after param_access
# CHECK-NEXT: k.x: read
# CHECK-NEXT: k.y: read written
# CHECK-NEXT: k.z: read written
# CHECK-NEXT: k.acc: written
# CHECK-NOT: unused
import weft as wp

@wp.func
def load(a: wp.array(dtype=float), i: int) -> float:
    return a[i]

@wp.kernel
def k(x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=float),
      acc: wp.array(dtype=float), unused: wp.array(dtype=float), scale: float):
    i = wp.tid()
    alias = x
    y[i] = load(alias, i) * scale
    wp.atomic_add(acc, 0, y[i])
    m = wp.atomic_max(z, 0, 1.0)
