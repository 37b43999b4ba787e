// gpusim/timing/epoch_pool.h — the host threads of one timed launch (internal header).
//
// launch_timed() runs the SMs epoch by epoch: every SM simulates `epoch_cycles`, then the launcher
// merges their L2 and atomic traffic alone. An epoch is short (256 cycles: tens of microseconds
// of host time), so starting threads per epoch cost about as much as the work. The pool starts
// its threads once per launch; each epoch is one run(): the calling thread and the workers take
// SMs from a shared counter until none is left, then wait for the next epoch.
//
//   EpochPool pool(threads);
//   for (each epoch) pool.run(count, [&](size_t i) { sms[i].run_until(end); });
//
// Which thread runs which SM does not matter: an SM's epoch reads only what the launcher left
// between epochs. An exception of item i is rethrown by run() after every item has finished,
// the lowest i's when several threw (what one thread, running them in order, would have thrown).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace weft::gpusim {

class EpochPool {
public:
    explicit EpochPool(int threads);  // threads >= 1; threads - 1 workers beside the caller
    ~EpochPool();
    EpochPool(const EpochPool&) = delete;
    EpochPool& operator=(const EpochPool&) = delete;

    // Calls work(i) once for every i in [0, count), spread over the pool's threads.
    void run(size_t count, const std::function<void(size_t)>& work);

private:
    void worker_loop();
    void take_items();

    std::vector<std::thread> workers_;
    std::mutex mu_;
    std::condition_variable start_cv_, done_cv_;
    uint64_t generation_ = 0;  // run() calls so far
    int busy_ = 0;             // workers still in the current run
    bool quit_ = false;
    // The current run.
    const std::function<void(size_t)>* work_ = nullptr;
    size_t count_ = 0;
    std::atomic<size_t> next_{0};
    std::vector<std::exception_ptr> errors_;  // per item
};

}  // namespace weft::gpusim
