import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    try:
        pass
    except:
        pass
