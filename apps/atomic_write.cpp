// Whole-or-absent output files and clean exits on signals. See atomic_write.h.
//
// The signal handler and the writer share one atomic word, so neither needs a lock (a handler may
// run on any thread, including the runtime's worker threads):
//   writing_ > 0 while a temporary may exist (it counts nested scopes); the handler then only
//   records the signal in pending_, and the writer exits with it once the temporary is gone;
//   writing_ = 0 otherwise; the handler prints its notice and calls _exit at once.
// A tracked temporary (track_temporary) lives in a fixed buffer that the handler reads: tracked_
// is set only while the buffer and the pid are complete.
#include "apps/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace weft::apps {

namespace {

std::atomic<int> writing_{0};
std::atomic<int> pending_{0};
const char* notice_ = "weft";
std::atomic<int> tracked_{0};
std::atomic<int> tracked_pid_{0};
char tracked_path_[4096];

[[noreturn]] void exit_on(int sig) {
    // async-signal-safe only: write(2), kill(2), waitpid(2), unlink(2) and _exit(2)
    if (tracked_.exchange(0)) {
        if (int pid = tracked_pid_.load(); pid > 0) {
            kill(pid, SIGKILL);
            while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {}
        }
        unlink(tracked_path_);
    }
    const char* tail = sig == SIGINT ? ": interrupted (SIGINT); finished files are complete, no temporary is left\n"
                                     : ": terminated (SIGTERM); finished files are complete, no temporary is left\n";
    ssize_t ignored = write(2, "\n", 1);
    ignored = write(2, notice_, strlen(notice_));
    ignored = write(2, tail, strlen(tail));
    (void)ignored;
    _exit(128 + sig);
}

void on_signal(int sig) {
    if (writing_.load()) {
        pending_.store(sig);
        return;
    }
    exit_on(sig);
}

// The permissions a file created with open(..., 0666) would get (mkstemp makes 0600).
mode_t default_mode() {
    static const mode_t mode = [] {
        mode_t mask = umask(022);
        umask(mask);
        return mode_t(0666 & ~mask);
    }();
    return mode;
}

}  // namespace

SignalsHeld::SignalsHeld() { writing_.fetch_add(1); }

SignalsHeld::~SignalsHeld() {
    if (writing_.fetch_sub(1) == 1)
        if (int sig = pending_.exchange(0)) exit_on(sig);
}

void track_temporary(const std::string& path, int writer_pid) {
    SignalsHeld held;
    tracked_.store(0);
    size_t n = std::min(path.size(), sizeof tracked_path_ - 1);
    std::memcpy(tracked_path_, path.data(), n);
    tracked_path_[n] = '\0';
    tracked_pid_.store(writer_pid);
    tracked_.store(1);
}

void untrack_temporary() { tracked_.store(0); }

void exit_for_signal(int sig) { exit_on(sig); }

void write_file_atomically(const std::string& path, const std::string& bytes) {
    mode_t mode = default_mode();
    SignalsHeld scope;
    std::vector<char> tmp(path.begin(), path.end());
    const char suffix[] = ".tmp.XXXXXX";
    tmp.insert(tmp.end(), suffix, suffix + sizeof suffix);  // with the terminating NUL
    int fd = mkstemp(tmp.data());
    if (fd < 0) throw std::runtime_error("cannot create a temporary file for " + path + ": " + strerror(errno));
    std::string name(tmp.data());
    auto fail = [&](const std::string& what, int err) {
        close(fd);
        unlink(name.c_str());
        return std::runtime_error("cannot write " + path + ": " + what + ": " + strerror(err) +
                                  (err == ENOSPC || err == EFBIG ? " (the partial file was removed)" : ""));
    };
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw fail("write", errno);
        done += size_t(n);
    }
    if (fchmod(fd, mode) != 0) throw fail("chmod", errno);
    if (close(fd) != 0) {
        int err = errno;
        unlink(name.c_str());
        throw std::runtime_error("cannot write " + path + ": close: " + strerror(err) + " (the partial file was removed)");
    }
    if (rename(name.c_str(), path.c_str()) != 0) {
        int err = errno;
        unlink(name.c_str());
        throw std::runtime_error("cannot rename " + name + " to " + path + ": " + strerror(err));
    }
}

void exit_cleanly_on_signals(const char* what) {
    notice_ = what;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    signal(SIGXFSZ, SIG_IGN);
}

}  // namespace weft::apps
