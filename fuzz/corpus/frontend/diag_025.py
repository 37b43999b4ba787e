import weft as wp

@wp.struct
class Body:
    mass: float
    inertia: wp.mat33

@wp.kernel
def k(b: wp.array(dtype=Body)):
    m = b[0].mas
