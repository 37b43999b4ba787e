// apps/atomic_write.h: output files that are whole or absent, even under Ctrl-C, a full disk or
// a hostile output folder.
//
// write_file_atomically(path, bytes) writes to a fresh temporary next to `path`
// (`path.tmp.XXXXXX`, created by mkstemp: O_CREAT | O_EXCL, so a symlink or file planted under any
// name is never followed or reused, and two processes writing the same path never share a
// temporary), then renames it over `path` (rename replaces a planted symlink itself, never its
// target). A failed write (ENOSPC, EFBIG under RLIMIT_FSIZE) removes the temporary before the
// error is thrown.
//
// exit_cleanly_on_signals() makes SIGINT and SIGTERM end the process with 130 / 143 (the shell's
// 128 + signal) without leaving a temporary behind: a signal that arrives while a file is being
// written is held until the temporary has been renamed or removed; any other time the process
// exits at once. It also ignores SIGXFSZ, so that exceeding RLIMIT_FSIZE is an EFBIG error from
// write() (reported, exit 1) instead of a core dump.
//
// A file that another process writes over a longer time (ffmpeg encoding `--video out.mp4`,
// viewer/video_writer.h) is tracked instead: track_temporary(path, pid) makes a signal kill that
// process (SIGKILL, then wait) and remove its temporary before the exit, until untrack_temporary().
// Start it and track it inside a SignalsHeld scope, so that no signal lands in between.
#pragma once

#include <string>

namespace weft::apps {

// Throws std::runtime_error naming the file and the system's reason.
void write_file_atomically(const std::string& path, const std::string& bytes);

// Installs the handlers described above (idempotent). `what` starts the one-line notice printed
// on a signal ("weft run").
void exit_cleanly_on_signals(const char* what);
// Ends the process as the handler would for `sig` (after the file being written, if any): for a
// signal the runtime caught first, such as a Ctrl-C that interrupted a launch
// (runtime::LaunchInterrupted, runtime/cancel.h).
[[noreturn]] void exit_for_signal(int sig);

// While one lives, SIGINT / SIGTERM wait (as during write_file_atomically); they take effect when
// the last one ends. Scopes nest.
struct SignalsHeld {
    SignalsHeld();
    ~SignalsHeld();
    SignalsHeld(const SignalsHeld&) = delete;
    SignalsHeld& operator=(const SignalsHeld&) = delete;
};

// The temporary `path` that process `writer_pid` is writing: removed, and the process killed, if a
// signal ends this process first. One at a time; a second call replaces the first.
void track_temporary(const std::string& path, int writer_pid);
void untrack_temporary();

}  // namespace weft::apps
