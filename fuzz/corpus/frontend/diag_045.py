import weft as wp

@wp.kernel
def k(a: wp.array(dtype=int)):
    print("hello)
