// viewer/video_writer.cpp: see video_writer.h.
//
// ffmpeg reads rawvideo rgb24 frames of a fixed size at a fixed rate from its stdin (a pipe) and
// writes the temporary; its stderr goes to a memfd that is read only after it exited, so a
// chatty ffmpeg can never fill a pipe and stall both processes. It prints errors only
// (-loglevel error), and any line it prints fails the video, whatever its exit status.
#include "viewer/video_writer.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char** environ;

namespace weft::viewer {

namespace {

struct Container {
    const char* extension;
    const char* format;  // ffmpeg's -f: the temporary's name has no extension to guess from
};
const Container kContainers[] = {{".mp4", "mp4"}, {".mov", "mov"}, {".mkv", "matroska"}, {".webm", "webm"}};

const Container* container_of(const std::string& path) {
    for (const Container& c : kContainers) {
        size_t n = strlen(c.extension);
        if (path.size() > n && path.compare(path.size() - n, n, c.extension) == 0) return &c;
    }
    return nullptr;
}

// The permissions a file created with open(..., 0666) would get (mkstemp makes 0600).
mode_t default_mode() {
    mode_t mask = umask(022);
    umask(mask);
    return mode_t(0666 & ~mask);
}

// Writes all of `data` to `fd` with SIGPIPE blocked on this thread; a SIGPIPE the write raised is
// taken off the pending set before the mask is restored. Returns 0 or the errno of the failure.
int write_all(int fd, const unsigned char* data, size_t size) {
    sigset_t pipe_only, old, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    sigpending(&pending);
    const bool was_pending = sigismember(&pending, SIGPIPE);
    int err = 0;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            err = errno;
            break;
        }
        done += size_t(n);
    }
    if (err == EPIPE && !was_pending) {
        struct timespec zero {};
        while (sigtimedwait(&pipe_only, nullptr, &zero) < 0 && errno == EINTR) {}
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return err;
}

int wait_for(int pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return status;
}

std::string number(double v) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

}  // namespace

std::string find_ffmpeg() {
    const char* env = getenv("PATH");
    std::string path = env ? env : "/usr/local/bin:/usr/bin:/bin";
    size_t pos = 0;
    while (pos <= path.size()) {
        size_t colon = path.find(':', pos);
        std::string dir = path.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
        if (!dir.empty()) {  // an empty entry would mean the working directory: not searched
            std::string candidate = dir + "/ffmpeg";
            struct stat st {};
            if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0)
                return candidate;
        }
        if (colon == std::string::npos) break;
        pos = colon + 1;
    }
    return "";
}

bool is_video_path(const std::string& path) { return container_of(path) != nullptr; }

VideoWriter::VideoWriter(const std::string& path, int width, int height, double fps)
    : path_(path), width_(width), height_(height) {
    const Container* container = container_of(path);
    if (!container)
        throw VideoError("cannot write video '" + path + "': its extension chooses the container: .mp4, .mov, .mkv or .webm");
    if (width <= 0 || height <= 0 || width % 2 || height % 2)
        throw VideoError("cannot write video '" + path + "': its frames are " + std::to_string(width) + "x" +
                         std::to_string(height) + ", and yuv420p video needs an even width and height");
    if (!(fps > 0) || !std::isfinite(fps))
        throw VideoError("cannot write video '" + path + "': a frame rate of " + number(fps) + " per second");
    std::string ffmpeg = find_ffmpeg();
    if (ffmpeg.empty())
        throw VideoError("writing video '" + path + "' needs ffmpeg, which is not on PATH: apt-get install ffmpeg");

    std::vector<char> name(path.begin(), path.end());
    const char suffix[] = ".tmp.XXXXXX";
    name.insert(name.end(), suffix, suffix + sizeof suffix);
    int fd = mkstemp(name.data());
    if (fd < 0) throw VideoError("cannot write " + path + ": " + strerror(errno));
    tmp_ = name.data();
    fchmod(fd, default_mode());
    close(fd);

    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) fail(std::string("pipe: ") + strerror(errno));
    pipe_ = fds[1];
    errfd_ = memfd_create("ffmpeg-stderr", MFD_CLOEXEC);
    if (errfd_ < 0) {
        close(fds[0]);
        fail(std::string("memfd_create: ") + strerror(errno));
    }

    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    const std::string rate = number(fps);
    std::vector<std::string> args = {
        ffmpeg,     "-hide_banner", "-nostats",    "-loglevel", "error",           "-y", "-f", "rawvideo",
        "-pix_fmt", "rgb24",        "-video_size", size,        "-framerate",      rate, "-i", "pipe:0",
        "-an",      "-pix_fmt",     "yuv420p",     "-f",        container->format, tmp_};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, errfd_, 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int sig : {SIGPIPE, SIGINT, SIGTERM}) sigaddset(&defaults, sig);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    pid_t pid = 0;
    int err = posix_spawn(&pid, ffmpeg.c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(fds[0]);
    if (err != 0) fail("cannot start " + ffmpeg + ": " + strerror(err));
    pid_ = int(pid);
}

VideoWriter::~VideoWriter() { discard(); }

void VideoWriter::discard() {
    if (pipe_ >= 0) close(pipe_);
    pipe_ = -1;
    if (pid_ > 0) {
        kill(pid_, SIGKILL);
        wait_for(pid_);
        pid_ = 0;
    }
    if (errfd_ >= 0) close(errfd_);
    errfd_ = -1;
    if (!tmp_.empty()) unlink(tmp_.c_str());
    tmp_.clear();
}

std::string VideoWriter::status_text(int status) const {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    return "ended with wait status " + std::to_string(status);
}

std::string VideoWriter::stderr_tail() const {
    if (errfd_ < 0) return "";
    std::string text;
    char buf[4096];
    ssize_t n = 0;
    off_t at = 0;
    while ((n = pread(errfd_, buf, sizeof buf, at)) > 0) {
        text.append(buf, size_t(n));
        at += n;
    }
    std::vector<std::string> lines;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty()) lines.push_back(line);
        if (nl == std::string::npos) break;
        pos = nl + 1;
    }
    const size_t keep = 6;
    std::string out;
    for (size_t i = lines.size() > keep ? lines.size() - keep : 0; i < lines.size(); ++i) out += "\n  ffmpeg: " + lines[i];
    return out;
}

void VideoWriter::fail(const std::string& what) {
    std::string status;
    if (pipe_ >= 0) close(pipe_);
    pipe_ = -1;
    if (pid_ > 0) {  // with its input closed, an ffmpeg still running ends by itself; 10 s at most
        int st = 0, r = 0;
        auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while ((r = waitpid(pid_, &st, WNOHANG)) == 0 && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        if (r == 0) {
            kill(pid_, SIGKILL);
            st = wait_for(pid_);
        }
        pid_ = 0;
        status = ": ffmpeg " + status_text(st);
    }
    std::string message = "cannot write " + path_ + ": " + what + status + stderr_tail();
    discard();
    throw VideoError(message);
}

void VideoWriter::add(const Image& image) {
    if (pid_ <= 0) throw VideoError("cannot write " + path_ + ": the video was already finished");
    if (image.width != width_ || image.height != height_)
        throw VideoError("cannot write " + path_ + ": a frame of " + std::to_string(image.width) + "x" +
                         std::to_string(image.height) + " in a " + std::to_string(width_) + "x" + std::to_string(height_) +
                         " video");
    const size_t pixels = size_t(width_) * size_t(height_);
    rgb_.resize(pixels * 3);
    for (size_t i = 0; i < pixels; ++i)
        for (size_t c = 0; c < 3; ++c) rgb_[3 * i + c] = image.rgba[4 * i + c];
    if (int err = write_all(pipe_, rgb_.data(), rgb_.size()))
        fail("ffmpeg stopped reading frame " + std::to_string(frames_) + " (" + strerror(err) + ")");
    ++frames_;
}

void VideoWriter::finish() {
    if (pid_ <= 0) throw VideoError("cannot write " + path_ + ": the video was already finished");
    if (frames_ == 0) {
        discard();
        throw VideoError("cannot write " + path_ + ": no frame was rendered");
    }
    close(pipe_);
    pipe_ = -1;
    int status = wait_for(pid_);
    pid_ = 0;
    // ffmpeg runs with -loglevel error, so anything on its stderr is an error: it exits with 0 after
    // "Error writing trailer of ...: File too large", leaving a truncated file.
    std::string tail = stderr_tail();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !tail.empty()) {
        std::string message =
            "cannot write " + path_ + ": ffmpeg " + status_text(status) + (tail.empty() ? "" : " and reported errors") + tail;
        discard();
        throw VideoError(message);
    }
    if (rename(tmp_.c_str(), path_.c_str()) != 0) {
        std::string message = "cannot rename " + tmp_ + " to " + path_ + ": " + strerror(errno);
        discard();
        throw VideoError(message);
    }
    tmp_.clear();
    discard();
}

}  // namespace weft::viewer
