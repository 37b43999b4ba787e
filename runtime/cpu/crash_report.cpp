// runtime/cpu/crash_report.cpp: see crash_report.h.
#include "runtime/cpu/crash_report.h"

#include <csignal>
#include <cstring>
#include <mutex>

#include <unistd.h>

namespace weft::runtime {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int kExitCode = 70;  // EX_SOFTWARE

struct sigaction g_previous[sizeof kSignals / sizeof kSignals[0]];
thread_local const char* t_kernel = nullptr;
thread_local bool t_checked = false;
std::mutex g_last_mu;
char g_last_unchecked[256];  // the name of the last kernel launched without bounds checks ("": none)

void put(const char* s) {
    size_t n = std::strlen(s);
    while (n > 0) {
        ssize_t w = ::write(2, s, n);
        if (w <= 0) return;
        s += w;
        n -= static_cast<size_t>(w);
    }
}

const char* signal_text(int sig) {
    switch (sig) {
        case SIGSEGV: return "SIGSEGV, an invalid memory access";
        case SIGBUS: return "SIGBUS, an invalid memory access";
        case SIGFPE: return "SIGFPE, an arithmetic fault";
        case SIGILL: return "SIGILL, an illegal instruction";
        default: return "SIGABRT";
    }
}

void on_crash(int sig, siginfo_t*, void*) {
    const char* kernel = t_kernel;
    if (kernel && sig != SIGABRT) {
        put("weft: kernel '");
        put(kernel);
        put("' crashed on the cpu device (");
        put(signal_text(sig));
        put(t_checked ? ").\n"
                      : ") in a launch without bounds checks: most likely an array index out of range. Rerun with "
                        "WEFT_DEBUG=1 (weft launch --debug; wp.config.mode = \"debug\" in Python) to find the access.\n");
        ::_exit(kExitCode);
    }
    if (const char* last = g_last_unchecked; last[0]) {
        put("weft: note: the process received ");
        put(signal_text(sig));
        put(" after CPU launches without bounds checks (the last: kernel '");
        put(last);
        put("'); an out-of-range write there may have corrupted memory. Rerun with WEFT_DEBUG=1 to check every access.\n");
    }
    // The previous action, as if this handler had not been installed.
    for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i)
        if (kSignals[i] == sig) sigaction(sig, &g_previous[i], nullptr);
    if (sig == SIGABRT) raise(sig);  // abort() re-raises itself; a fault re-executes the instruction
}

}  // namespace

void install_crash_report() {
    static std::once_flag once;
    std::call_once(once, [] {
        for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
            struct sigaction sa {};
            sa.sa_sigaction = on_crash;
            sigemptyset(&sa.sa_mask);
            sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
            sigaction(kSignals[i], &sa, &g_previous[i]);
        }
    });
}

void set_running_kernel(const char* kernel, bool checked) {
    t_kernel = kernel;
    t_checked = checked;
    if (kernel && !checked && std::strncmp(g_last_unchecked, kernel, sizeof g_last_unchecked - 1) != 0) {
        std::lock_guard<std::mutex> lock(g_last_mu);
        std::strncpy(g_last_unchecked, kernel, sizeof g_last_unchecked - 1);
    }
}

}  // namespace weft::runtime
