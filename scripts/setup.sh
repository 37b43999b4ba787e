#!/usr/bin/env bash
# Installs every Debian package Weft uses (idempotent), configures and builds it.
#   scripts/setup.sh            install, build, and run the default example
#   scripts/setup.sh --deps     install only
#   scripts/setup.sh --no-run   install and build, run nothing
# The CUDA toolkit is not a Debian package here: it is used from /usr/local/cuda when present
# (NVRTC for PTX and the CUDA device); without it Weft builds with the CPU and sim devices only.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  llvm-14-dev libclang-14-dev clang-14        # CPU device: in-process Clang + LLVM ORC JIT
  libgtest-dev googletest libbenchmark-dev     # tests and benchmarks
  libeigen3-dev                                # host-side linear algebra, test references
  pybind11-dev python3-dev python3-numpy python3-pytest   # Python package
  libtomlplusplus-dev                          # scene files
  libtinyxml2-dev                              # URDF / MJCF import (engine/urdf_import.h, mjcf_import.h)
  libmujoco-dev                                # tests only: MuJoCo 2.2.2 as the import's reference
  libglfw3-dev libimgui-dev libgl-dev xvfb     # viewer
  libegl-dev zlib1g-dev xauth                  # viewer: headless EGL rendering, PNG frames, xvfb-run
  ffmpeg                                       # --video out.mp4 (weft view --headless, weft run --render), ffprobe in tests
  libopenvdb-dev libboost-iostreams-dev        # smoke grids as .vdb files (formats = ["vdb"]); CMake's FindOpenVDB needs Boost
  clang-format-14                              # scripts/format, and the format check among the tests
  python3-mpi4py libopenmpi-dev openmpi-bin    # wp.distributed (python/weft/distributed.py), `mpirun weft run` (docs/scale-out.md) and their mpirun tests
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
[ "${1:-}" = "--deps" ] && exit 0

BUILD_DIR="${WEFT_BUILD_DIR:-build}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$BUILD_DIR" -j "$(nproc)"
[ "${1:-}" = "--no-run" ] && exit 0

echo
echo "== default example: scenes/bounce.toml on the CPU device (frames in $BUILD_DIR/out/bounce) =="
"$BUILD_DIR/apps/weft" run scenes/bounce.toml --frames 60 --out "$BUILD_DIR/out/bounce"
