// runtime/cuda/launch_log.cpp: the launches in flight and the fault messages. See launch_log.h.
#include "runtime/cuda/launch_log.h"

#include "runtime/cuda/cuda_driver.h"

namespace weft::runtime {

bool is_sticky_cuda_error(CUresult r) {
    switch (r) {
        case CUDA_ERROR_ILLEGAL_ADDRESS:
        case CUDA_ERROR_LAUNCH_FAILED:
        case CUDA_ERROR_ILLEGAL_INSTRUCTION:
        case CUDA_ERROR_MISALIGNED_ADDRESS:
        case CUDA_ERROR_INVALID_ADDRESS_SPACE:
        case CUDA_ERROR_INVALID_PC:
        case CUDA_ERROR_HARDWARE_STACK_ERROR:
        case CUDA_ERROR_ASSERT:
        case CUDA_ERROR_LAUNCH_TIMEOUT:
        case CUDA_ERROR_ECC_UNCORRECTABLE:
        case CUDA_ERROR_CONTEXT_IS_DESTROYED: return true;
        default: return false;
    }
}

std::string describe_cuda_error(CUresult r) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (cuda_available()) {
        cuda_driver().cuGetErrorName(r, &name);
        cuda_driver().cuGetErrorString(r, &text);
    }
    std::string s = name ? name : "CUDA error " + std::to_string(static_cast<int>(r));
    if (text) s += std::string(" (") + text + ")";
    return s;
}

void LaunchLog::record(LaunchRecord r) {
    std::lock_guard<std::mutex> lock(mu_);
    r.sequence = ++sequence_;
    pending_.push_back(std::move(r));
    if (pending_.size() > kMaxPending) {
        pending_.pop_front();
        ++dropped_;
    }
}

void LaunchLog::clear() {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.clear();
    dropped_ = 0;
}

std::string LaunchLog::describe(const LaunchRecord& r) const {
    std::string s = "kernel '" + (r.kernel ? r.kernel->name : std::string("?")) + "' (";
    if (r.kernel && !r.kernel->where.empty()) s += r.kernel->where + ", ";
    std::string dim = "(";
    for (int d = 0; d < r.ndim; ++d) dim += (d ? ", " : "") + std::to_string(r.shape[d]);
    dim += r.ndim == 1 ? ",)" : ")";
    s += "dim " + dim + ", block_dim " + std::to_string(r.block_dim) + ", device " + device_ + ")";
    return s;
}

std::string LaunchLog::fault_message(CUresult code, const char* during, const LaunchRecord* exact) const {
    const std::string err = describe_cuda_error(code);
    if (exact) return describe(*exact) + " faulted: " + err;
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_.size() == 1 && dropped_ == 0)
        return describe(pending_.front()) + " faulted: " + err + " (noticed by " + during + ")";
    if (pending_.empty())
        return "the GPU " + device_ + " reported " + err + " (noticed by " + during +
               ") with no Weft launch in flight; a kernel launched outside Weft may have faulted";
    std::string s = "a kernel faulted on " + device_ + ": " + err + " (noticed by " + during + "); it is one of the " +
                    std::to_string(pending_.size() + dropped_) + " launches since the last synchronisation";
    if (dropped_) s += " (the last " + std::to_string(pending_.size()) + " shown)";
    s += ", most recent last:";
    for (const auto& r : pending_) s += "\n  #" + std::to_string(r.sequence) + " " + describe(r);
    s += "\nrerun with WEFT_CUDA_SYNC=1 to synchronise after every launch and name the faulting one";
    return s;
}

}  // namespace weft::runtime
