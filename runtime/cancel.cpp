// runtime/cancel.cpp: see cancel.h.
#include "runtime/cancel.h"

#include <csignal>
#include <mutex>

namespace weft::runtime {
namespace {

std::atomic<int> g_cancel{0};
std::mutex g_mu;
int g_scopes = 0;
struct sigaction g_previous;

void on_sigint(int) { request_cancel(); }

}  // namespace

std::atomic<int>& cancel_flag() { return g_cancel; }

void request_cancel() { g_cancel.store(1, std::memory_order_relaxed); }

InterruptScope::InterruptScope() {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_scopes++ > 0) return;
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, &g_previous);
}

InterruptScope::~InterruptScope() {
    std::lock_guard<std::mutex> lock(g_mu);
    if (--g_scopes > 0) return;
    sigaction(SIGINT, &g_previous, nullptr);
}

void throw_if_cancelled(const std::string& kernel) {
    if (!g_cancel.exchange(0)) return;
    throw LaunchInterrupted("launch of kernel '" + kernel + "' was interrupted (Ctrl-C); its output arrays are incomplete");
}

}  // namespace weft::runtime
