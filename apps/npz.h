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

namespace weft::apps {

struct NpyArray {
    std::string descr;            // "<f4", "<i8", "|b1", ...
    std::vector<int64_t> shape;   // () for a scalar
    std::vector<std::byte> data;  // C order
    size_t item_size() const;
};

// Member name (without ".npy") -> array. Throws std::runtime_error naming the file and the problem.
std::map<std::string, NpyArray> read_npz(const std::string& path);
NpyArray parse_npy(const std::string& bytes, const std::string& what);

// Writes an .npz (numpy.savez layout: stored .npy members) to path.tmp, then renames it to path
// (apps/npz_write.cpp). Throws std::runtime_error naming the file.
void write_npz(const std::string& path, const std::map<std::string, NpyArray>& arrays);
// Writes bytes to path.tmp and renames it to path, so readers see the old file or the whole new one.
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace weft::apps
