// apps/vdb_write.cpp: see vdb_write.h. Built with OpenVDB when CMake finds it (WEFT_HAVE_OPENVDB);
// otherwise the same functions say it is missing.
#include "apps/vdb_write.h"

#include <stdexcept>

#ifdef WEFT_HAVE_OPENVDB
#include <openvdb/io/Archive.h>
#include <openvdb/openvdb.h>

#include <sstream>
#endif

namespace weft::apps {

#ifdef WEFT_HAVE_OPENVDB

bool vdb_available() { return true; }

namespace {

// io::File writes the .vdb format to a path; the same writer, given a seekable stream in memory
// (grid offsets are patched in after each grid), gives the file's bytes, which
// write_file_atomically then puts in place whole.
class MemoryArchive : public openvdb::io::Archive {
public:
    std::string bytes(const openvdb::GridPtrVec& grids, const openvdb::MetaMap& meta) const {
        std::ostringstream os(std::ios_base::binary);
        Archive::write(os, grids, /*seekable=*/true, meta);
        return os.str();
    }
};

}  // namespace

std::string vdb_bytes(const VdbFields& f, int frame, double time) {
    openvdb::initialize();
    const double h = f.h;
    openvdb::math::Transform::Ptr xf = openvdb::math::Transform::createLinearTransform(h);
    xf->postTranslate(openvdb::Vec3d(f.origin[0] + 0.5 * h, f.origin[1] + 0.5 * h, f.origin[2] + 0.5 * h));

    openvdb::FloatGrid::Ptr density = openvdb::FloatGrid::create(0.0f);
    density->setName("density");
    density->setGridClass(openvdb::GRID_FOG_VOLUME);
    density->setTransform(xf);
    openvdb::Vec3SGrid::Ptr velocity = openvdb::Vec3SGrid::create(openvdb::Vec3s(0.0f));
    velocity->setName("velocity");
    velocity->setTransform(xf->copy());
    {
        openvdb::FloatGrid::Accessor d = density->getAccessor();
        openvdb::Vec3SGrid::Accessor vel = velocity->getAccessor();
        const int64_t nx = f.nx, ny = f.ny, nz = f.nz;
        for (int64_t k = 0; k < nz; ++k)
            for (int64_t j = 0; j < ny; ++j)
                for (int64_t i = 0; i < nx; ++i) {
                    const openvdb::Coord c{int(i), int(j), int(k)};
                    const float value = f.density[(k * ny + j) * nx + i];
                    if (value != 0.0f) d.setValue(c, value);
                    const float uc = 0.5f * (f.u[(k * ny + j) * (nx + 1) + i] + f.u[(k * ny + j) * (nx + 1) + i + 1]);
                    const float vc = 0.5f * (f.v[(k * (ny + 1) + j) * nx + i] + f.v[(k * (ny + 1) + j + 1) * nx + i]);
                    const float wc = 0.5f * (f.w[(k * ny + j) * nx + i] + f.w[((k + 1) * ny + j) * nx + i]);
                    if (uc != 0.0f || vc != 0.0f || wc != 0.0f) vel.setValue(c, openvdb::Vec3s(uc, vc, wc));
                }
    }
    openvdb::GridPtrVec grids{density, velocity};
    openvdb::MetaMap meta;
    meta.insertMeta("creator", openvdb::StringMetadata("weft"));
    meta.insertMeta("frame", openvdb::Int32Metadata(frame));
    meta.insertMeta("time", openvdb::FloatMetadata(float(time)));
    return MemoryArchive().bytes(grids, meta);
}

#else

bool vdb_available() { return false; }

std::string vdb_bytes(const VdbFields&, int, double) {
    throw std::runtime_error(
        "this weft was built without OpenVDB (apt-get install libopenvdb-dev, then rebuild): "
        "formats = [\"vdb\"] cannot be written");
}

#endif

}  // namespace weft::apps
