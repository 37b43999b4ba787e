// gpusim/timing/epoch_pool.cpp — EpochPool (epoch_pool.h).
#include "gpusim/timing/epoch_pool.h"

namespace weft::gpusim {

EpochPool::EpochPool(int threads) {
    for (int t = 1; t < threads; ++t) workers_.emplace_back([this] { worker_loop(); });
}

EpochPool::~EpochPool() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        quit_ = true;
    }
    start_cv_.notify_all();
    for (std::thread& t : workers_) t.join();
}

void EpochPool::take_items() {
    for (size_t i = next_.fetch_add(1, std::memory_order_relaxed); i < count_;
         i = next_.fetch_add(1, std::memory_order_relaxed)) {
        try {
            (*work_)(i);
        } catch (...) { errors_[i] = std::current_exception(); }
    }
}

void EpochPool::worker_loop() {
    uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mu_);
            start_cv_.wait(lock, [&] { return quit_ || generation_ != seen; });
            if (quit_) return;
            seen = generation_;
        }
        take_items();
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (--busy_ == 0) done_cv_.notify_one();
        }
    }
}

void EpochPool::run(size_t count, const std::function<void(size_t)>& work) {
    errors_.assign(count, nullptr);
    if (workers_.empty() || count <= 1) {
        // Nothing to share: no wake-ups.
        work_ = &work;
        count_ = count;
        next_.store(0, std::memory_order_relaxed);
        take_items();
    } else {
        {
            std::lock_guard<std::mutex> lock(mu_);
            work_ = &work;
            count_ = count;
            next_.store(0, std::memory_order_relaxed);
            busy_ = static_cast<int>(workers_.size());
            ++generation_;
        }
        start_cv_.notify_all();
        take_items();
        std::unique_lock<std::mutex> lock(mu_);
        done_cv_.wait(lock, [&] { return busy_ == 0; });
    }
    for (const std::exception_ptr& e : errors_)
        if (e) std::rethrow_exception(e);
}

}  // namespace weft::gpusim
