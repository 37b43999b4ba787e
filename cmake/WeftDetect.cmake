# Auto-detection of the optional parts. Each WEFT_WITH_* option defaults to ON when what it needs
# is found and can be forced OFF (or ON, which then fails loudly if the dependency is missing).

# --- LLVM / Clang (CPU device) -------------------------------------------------------------
set(_weft_llvm_default OFF)
foreach(_v 16 15 14)
  if(NOT _weft_llvm_default AND EXISTS /usr/lib/llvm-${_v}/lib/cmake/clang/ClangConfig.cmake
     AND EXISTS /usr/lib/llvm-${_v}/include/clang/CodeGen/CodeGenAction.h)
    set(_weft_llvm_default ON)
    set(WEFT_LLVM_ROOT /usr/lib/llvm-${_v} CACHE PATH "LLVM installation used by the CPU device")
  endif()
endforeach()
option(WEFT_WITH_LLVM "CPU device through Clang + LLVM ORC JIT" ${_weft_llvm_default})

# --- CUDA (NVRTC at build time; the driver is dlopen'ed at run time) -------------------------
set(WEFT_CUDA_ROOT /usr/local/cuda CACHE PATH "CUDA toolkit")
set(_weft_cuda_default OFF)
if(EXISTS ${WEFT_CUDA_ROOT}/include/nvrtc.h AND EXISTS ${WEFT_CUDA_ROOT}/include/cuda.h)
  set(_weft_cuda_default ON)
endif()
option(WEFT_WITH_CUDA "CUDA device and PTX generation through NVRTC" ${_weft_cuda_default})

# --- Python ---------------------------------------------------------------------------------
set(_weft_py_default OFF)
set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python used for the module and the tests")
find_package(Python 3 COMPONENTS Interpreter Development.Module QUIET)
if(Python_FOUND)
  find_package(pybind11 CONFIG QUIET)
  if(pybind11_FOUND)
    set(_weft_py_default ON)
  endif()
endif()
option(WEFT_WITH_PYTHON "pybind11 module and the weft Python package" ${_weft_py_default})

# --- Viewer ---------------------------------------------------------------------------------
set(_weft_viewer_default OFF)
find_package(glfw3 QUIET)
find_package(OpenGL QUIET COMPONENTS OpenGL EGL)
find_package(ZLIB QUIET)
# viewer/ compiles Dear ImGui's GLFW and OpenGL 3 backends from Debian's examples folder, renders
# headless through EGL and writes PNG files with zlib. WEFT_IMGUI_ROOT is where libimgui-dev's files
# are (/ on Debian; a folder its package was unpacked into elsewhere, as on the GPU machine).
set(WEFT_IMGUI_ROOT "/" CACHE PATH "the root under which usr/include/imgui and libimgui-dev's examples are")
set(WEFT_IMGUI_INCLUDE "${WEFT_IMGUI_ROOT}/usr/include/imgui")
set(WEFT_IMGUI_BACKENDS "${WEFT_IMGUI_ROOT}/usr/share/doc/libimgui-dev/examples/backends")
if(glfw3_FOUND AND OpenGL_FOUND AND OpenGL_EGL_FOUND AND ZLIB_FOUND AND EXISTS ${WEFT_IMGUI_INCLUDE}/imgui.h
   AND EXISTS ${WEFT_IMGUI_BACKENDS}/imgui_impl_opengl3.cpp)
  set(_weft_viewer_default ON)
endif()
option(WEFT_WITH_VIEWER "Interactive viewer (GLFW + OpenGL + Dear ImGui)" ${_weft_viewer_default})

# OpenVDB output of smoke grids (`formats = ["vdb"]`, apps/vdb_write.h) where Debian's
# libopenvdb-dev is installed; without it weft builds and says so when a scene asks for .vdb files.
# OpenVDB's FindOpenVDB.cmake stops the configuration (QUIET or not) when Boost's iostreams is
# missing, so it is asked only where Boost is.
list(APPEND CMAKE_MODULE_PATH /usr/lib/x86_64-linux-gnu/cmake/OpenVDB /usr/lib/cmake/OpenVDB /usr/local/lib/cmake/OpenVDB)
set(_weft_openvdb_default OFF)
find_package(Boost QUIET COMPONENTS iostreams)
if(Boost_FOUND)
  find_package(OpenVDB QUIET)
  set(_weft_openvdb_default ${OpenVDB_FOUND})
endif()
option(WEFT_WITH_OPENVDB "OpenVDB output of smoke grids (libopenvdb-dev)" ${_weft_openvdb_default})
