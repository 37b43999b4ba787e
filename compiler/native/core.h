// compiler/native/core.h: the ground floor of the builtins header.
//
// Everything in compiler/native/ compiles three ways: as host C++20 inside the CPU device's Clang
// JIT, as CUDA C++ under NVRTC, and as ordinary C++ under g++/clang for unit tests. It therefore
// includes no system header at all: scalar types are spelled here, libm functions are declared
// here for the host, and CUDA's own device math is used under NVRTC.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WP_CUDA 1
#define WP_FUNC __host__ __device__ inline
#define WP_DEVICE __device__ inline
#define WP_SHARED __shared__
#else
#define WP_CUDA 0
#define WP_FUNC inline
#define WP_DEVICE inline
#define WP_SHARED
#endif

#if WP_CUDA && defined(__CUDA_ARCH__)
#define WP_DEVICE_CODE 1
#else
#define WP_DEVICE_CODE 0
#endif

namespace wp {

using int8 = signed char;
using uint8 = unsigned char;
using int16 = short;
using uint16 = unsigned short;
using int32 = int;
using uint32 = unsigned int;
using int64 = long long;
using uint64 = unsigned long long;
using float32 = float;
using float64 = double;
using size_t = decltype(sizeof(0));

}  // namespace wp
