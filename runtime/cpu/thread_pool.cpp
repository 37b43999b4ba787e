// The CPU worker pool. See thread_pool.h.
#include "runtime/cpu/thread_pool.h"

#include <memory>

#include "runtime/config.h"

namespace weft::runtime {

ThreadPool::ThreadPool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_main(i); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::worker_main(int id) {
    int64_t seen = 0;
    while (true) {
        const std::function<void(int64_t, int)>* job;
        {
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            job = job_;
            // The job may have finished (job_ reset) before this worker woke; a later job would
            // then pair the new n_/next_ with this stale pointer. Wait for the next generation.
            if (!job) continue;
            ++active_;
        }
        while (true) {
            int64_t i;
            {
                std::lock_guard<std::mutex> lock(mu_);
                if (generation_ != seen || next_ >= n_ || error_) break;
                i = next_++;
            }
            try {
                (*job)(i, id);
            } catch (...) {
                std::lock_guard<std::mutex> lock(mu_);
                if (!error_) error_ = std::current_exception();
            }
        }
        {
            std::lock_guard<std::mutex> lock(mu_);
            --active_;
        }
        done_cv_.notify_all();
    }
}

void ThreadPool::parallel_for(int64_t n, const std::function<void(int64_t, int)>& fn) {
    if (n <= 0) return;
    if (workers_.empty() || n == 1) {
        for (int64_t i = 0; i < n; ++i) fn(i, 0);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mu_);
        job_ = &fn;
        n_ = n;
        next_ = 0;
        error_ = nullptr;
        ++generation_;
    }
    cv_.notify_all();
    while (true) {
        int64_t i;
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (next_ >= n_ || error_) break;
            i = next_++;
        }
        try {
            fn(i, 0);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mu_);
            if (!error_) error_ = std::current_exception();
        }
    }
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [&] { return active_ == 0; });
    job_ = nullptr;
    n_ = 0;
    if (error_) {
        auto e = error_;
        error_ = nullptr;
        std::rethrow_exception(e);
    }
}

namespace {
std::mutex g_pool_mu;
std::unique_ptr<ThreadPool> g_pool;
int g_threads = -1;

int resolve(int n) {
    if (n > 0) return n;
    unsigned hw = std::thread::hardware_concurrency();
    return hw ? static_cast<int>(hw) : 1;
}
}  // namespace

ThreadPool& cpu_thread_pool() {
    std::lock_guard<std::mutex> lock(g_pool_mu);
    if (!g_pool) {
        g_threads = resolve(config().num_threads);
        g_pool = std::make_unique<ThreadPool>(g_threads);
    }
    return *g_pool;
}

void set_cpu_threads(int n) {
    std::lock_guard<std::mutex> lock(g_pool_mu);
    int want = resolve(n);
    config().num_threads = n;
    if (g_pool && want == g_threads) return;
    g_pool.reset();
    g_threads = want;
    g_pool = std::make_unique<ThreadPool>(want);
}

int cpu_threads() {
    cpu_thread_pool();
    std::lock_guard<std::mutex> lock(g_pool_mu);
    return g_threads;
}

}  // namespace weft::runtime
