// runtime/config.h: process-wide runtime settings (wp.config in Python).
//
//   debug          bounds-check every array access in every launch (WEFT_DEBUG=1)
//   verify_finite  after each launch, check the launch's floating-point arrays for NaN/Inf and
//                  raise an error naming the first launch that produced one (WEFT_VERIFY_FINITE=1)
//   num_threads    CPU device worker threads; 0 = every core (WEFT_NUM_THREADS)
#pragma once

namespace weft::runtime {

struct Config {
    bool debug = false;
    bool verify_finite = false;
    int num_threads = 0;
};

Config& config();  // initialised from the environment on first use

}  // namespace weft::runtime
