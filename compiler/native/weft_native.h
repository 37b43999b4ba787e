// compiler/native/weft_native.h: the umbrella that generated kernel code includes.
//
// Order matters only in one direction: core.h first (macros, scalar types), then the value types
// from the bottom up (tuple/helpers, float16, scalar math, vectors, matrices, quaternions,
// transforms, spatial algebra), random numbers and atomics, the array/launch headers, and warp
// collectives last. Includes are by bare file name: the headers are served flat, from an in-memory file
// system to the CPU JIT and as a named-header list to NVRTC. No system header is included.
#pragma once

#include "core.h"
#include "tuple.h"
#include "float16.h"
#include "math.h"
#include "vec.h"
#include "mat.h"
#include "quat.h"
#include "transform.h"
#include "spatial.h"
#include "operators.h"
#include "random.h"
#include "atomic.h"
#include "array.h"
#include "launch.h"
#include "adjoint.h"
#include "warp.h"
