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

}  // namespace weft::apps
