// `weft run` with [output] formats = ["npz", "vdb"] on a smoke scene: each frame's .vdb, read back
// through OpenVDB's own file reader (io::File, as Blender and Houdini open it), holds the frame's
// .npz fields: density voxel for voxel, velocity as the face values averaged to the cell centres
// (computed here from the .npz), voxel centres at the cell centres, and the frame's metadata.
#include <gtest/gtest.h>
#include <openvdb/openvdb.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include "apps/npz.h"
#include "runtime/device.h"

namespace {

std::string run(const std::string& cmd, int* rc) {
    std::string out;
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    int status = pclose(p);
    *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

std::vector<float> floats(const weft::apps::NpyArray& a) {
    std::vector<float> v(a.data.size() / sizeof(float));
    std::memcpy(v.data(), a.data.data(), a.data.size());
    return v;
}

TEST(VdbOutput, FramesHoldTheSmokeGridAsOpenVdbReadsIt) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    auto dir = std::filesystem::temp_directory_path() / ("weft_vdb_test_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const int nx = 10, ny = 12, nz = 6;
    const float h = 0.05f, origin[3] = {-0.2f, 0.1f, 0.3f};
    std::ofstream(dir / "plume.toml") << "[simulation]\nsolver = \"smoke\"\nframes = 3\nfps = 30\nsubsteps = 2\n"
                                         "[smoke]\nresolution = [10, 12, 6]\ncell_size = 0.05\norigin = [-0.2, 0.1, 0.3]\n"
                                         "buoyancy = 3.0\nvorticity = 0.1\n"
                                         "[[smoke.source]]\nshape = \"sphere\"\ncenter = [0.05, 0.25, 0.45]\nradius = 0.09\n"
                                         "rate = 5.0\nvelocity = [0.5, 1.0, 0.0]\n"
                                         "[output]\nformats = [\"npz\", \"vdb\"]\n";
    int rc = 0;
    std::string out =
        run(std::string(WEFT_BIN) + " run " + (dir / "plume.toml").string() + " --quiet --out " + (dir / "out").string(), &rc);
    ASSERT_EQ(rc, 0) << out;
    openvdb::initialize();
    for (int frame = 0; frame <= 3; ++frame) {
        char name[32];
        snprintf(name, sizeof name, "frame_%05d", frame);
        auto npz = weft::apps::read_npz((dir / "out" / (std::string(name) + ".npz")).string());
        std::vector<float> d = floats(npz["smoke_density"]), u = floats(npz["smoke_u"]), v = floats(npz["smoke_v"]),
                           w = floats(npz["smoke_w"]);
        openvdb::io::File file((dir / "out" / (std::string(name) + ".vdb")).string());
        ASSERT_NO_THROW(file.open()) << name;
        openvdb::MetaMap::Ptr meta = file.getMetadata();
        EXPECT_EQ(meta->metaValue<std::string>("creator"), "weft");
        EXPECT_EQ(meta->metaValue<int32_t>("frame"), frame);
        EXPECT_FLOAT_EQ(meta->metaValue<float>("time"), float(frame / 30.0));
        auto density = openvdb::gridPtrCast<openvdb::FloatGrid>(file.readGrid("density"));
        auto velocity = openvdb::gridPtrCast<openvdb::Vec3SGrid>(file.readGrid("velocity"));
        file.close();
        ASSERT_TRUE(density && velocity) << name;
        EXPECT_EQ(density->getGridClass(), openvdb::GRID_FOG_VOLUME);
        // voxel centres at the cell centres
        for (openvdb::Coord c : {openvdb::Coord(0, 0, 0), openvdb::Coord(9, 11, 5), openvdb::Coord(3, 7, 2)}) {
            openvdb::Vec3d p = density->indexToWorld(c);
            for (int a = 0; a < 3; ++a) EXPECT_NEAR(p[a], origin[a] + (c[a] + 0.5) * h, 1e-6) << a;
            EXPECT_EQ(velocity->indexToWorld(c), p);
        }
        double total = 0;
        int active = 0;
        auto da = density->getConstAccessor();
        auto va = velocity->getConstAccessor();
        for (int k = 0; k < nz; ++k)
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    const float cell = d[size_t((k * ny + j) * nx + i)];
                    ASSERT_EQ(da.getValue(openvdb::Coord(i, j, k)), cell) << name << " " << i << " " << j << " " << k;
                    active += cell != 0.0f;
                    total += cell;
                    openvdb::Vec3s expect(
                        0.5f * (u[size_t((k * ny + j) * (nx + 1) + i)] + u[size_t((k * ny + j) * (nx + 1) + i + 1)]),
                        0.5f * (v[size_t((k * (ny + 1) + j) * nx + i)] + v[size_t((k * (ny + 1) + j + 1) * nx + i)]),
                        0.5f * (w[size_t((k * ny + j) * nx + i)] + w[size_t(((k + 1) * ny + j) * nx + i)]));
                    ASSERT_EQ(va.getValue(openvdb::Coord(i, j, k)), expect) << name << " " << i << " " << j << " " << k;
                }
        EXPECT_EQ(int(density->activeVoxelCount()), active) << "only nonzero cells are stored";
        if (frame == 0) {
            EXPECT_EQ(active, 0) << "the initial state has no smoke";
        } else {
            EXPECT_GT(total, 0.0) << name << ": the source has added density";
        }
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
