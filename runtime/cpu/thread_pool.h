// runtime/cpu/thread_pool.h: the CPU device's workers.
//
// parallel_for(n, fn) runs fn(i, worker) for i in [0, n) on every worker plus the calling thread,
// handing out indices dynamically (an atomic counter), and returns when all are done. An
// exception thrown by fn is rethrown in the caller after the loop drains. Work items must be
// independent; which worker runs which item is not deterministic, results of item-independent
// work are.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace weft::runtime {

class ThreadPool {
public:
    explicit ThreadPool(int threads);  // total threads including the caller; >= 1
    ~ThreadPool();
    int size() const { return static_cast<int>(workers_.size()) + 1; }
    void parallel_for(int64_t n, const std::function<void(int64_t, int)>& fn);

private:
    void worker_main(int id);
    std::vector<std::thread> workers_;
    std::mutex mu_;
    std::condition_variable cv_, done_cv_;
    const std::function<void(int64_t, int)>* job_ = nullptr;
    int64_t n_ = 0;
    int64_t next_ = 0;
    int64_t generation_ = 0;
    int active_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;
};

// The process's pool, sized by config().num_threads (0 = hardware threads); resized on demand.
ThreadPool& cpu_thread_pool();
void set_cpu_threads(int n);  // 0 = every core
int cpu_threads();

}  // namespace weft::runtime
