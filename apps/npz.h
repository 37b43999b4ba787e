// apps/npz.h: reading numpy's .npz archives (numpy.savez) for `weft launch/sim --inputs`.
//
// An .npz is a zip file of .npy arrays. Only stored (uncompressed) members are read, which is
// what numpy.savez writes; numpy.savez_compressed archives get an error that says so. Each .npy
// holds a little header (dtype descr, fortran_order, shape) and the raw data.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "apps/atomic_write.h"

namespace weft::apps {

struct NpyArray {
    std::string descr;            // "<f4", "<i8", "|b1", ...
    std::vector<int64_t> shape;   // () for a scalar
    std::vector<std::byte> data;  // C order
    size_t item_size() const;
};

// Member name (without ".npy") -> array. Throws std::runtime_error naming the file and the problem.
// Every offset, size and shape is bounded by the bytes present: a damaged archive is an error,
// never a hang or an over-long read.
std::map<std::string, NpyArray> read_npz(const std::string& path);
// The same on an archive already in memory; `path` names it in messages (the fuzz target's entry).
std::map<std::string, NpyArray> read_npz_bytes(const std::string& bytes, const std::string& path);
NpyArray parse_npy(const std::string& bytes, const std::string& what);

// Writes an .npz (numpy.savez layout: stored .npy members) with write_file_atomically
// (apps/atomic_write.h: a unique temporary, then a rename). Throws std::runtime_error naming the file.
void write_npz(const std::string& path, const std::map<std::string, NpyArray>& arrays);

}  // namespace weft::apps
