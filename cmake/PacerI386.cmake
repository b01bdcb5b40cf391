# The GL interposer and the Vulkan layer for 32-bit games (i386), beside the x86-64 ones: a second
# build of this project in <build>/i386 with -m32 and everything off but those two
# (ExternalProject, rebuilt with every build of the main tree). Where: an x86-64 Linux build with
# PACER_BUILD_I386 (the default for pacer's own build), a multiarch install layout
# (cmake/PacerInjectDirs.cmake: the manifests and pacer-run name both ABIs' libraries through
# $LIB), no sanitizer, and a compiler that builds and links -m32 C++ (Debian: gcc-multilib,
# g++-multilib). Installed into lib/i386-linux-gnu with the same components.
#
# What the 32-bit build leaves out: the D-Bus headers (Debian's dbus-arch-deps.h is the 64-bit
# one), so a 32-bit game's `automatic` priority takes what the process may set itself (the
# real-time class as root or with RLIMIT_RTPRIO, the weight with RLIMIT_NICE), not RealtimeKit's
# grant; and libvulkan (the layer needs the Vulkan headers only: the 64-bit loader's path
# satisfies FindVulkan, nothing links it).
if(NOT PACER_BUILD_I386 OR NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" OR NOT TARGET pacer_gl_shim
   OR NOT CMAKE_SIZEOF_VOID_P EQUAL 8 OR NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$"
   OR CMAKE_CROSSCOMPILING OR CMAKE_CXX_FLAGS MATCHES "sanitize")
  return()
endif()
if(NOT PACER_INJECT_MULTIARCH)
  message(STATUS "pacer: 32-bit interposer and layer: no (no multiarch library folders to name them by $LIB)")
  return()
endif()
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS -m32)
set(CMAKE_REQUIRED_LINK_OPTIONS -m32)
set(CMAKE_REQUIRED_QUIET ON)
check_cxx_source_compiles("#include <thread>\nint main() { std::thread t([] {}); t.join(); }" PACER_HAVE_M32)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
unset(CMAKE_REQUIRED_QUIET)
if(NOT PACER_HAVE_M32)
  message(STATUS "pacer: 32-bit interposer and layer: no (the compiler cannot build -m32 C++: gcc-multilib, g++-multilib)")
  return()
endif()

include(ExternalProject)
set(_i386 ${PROJECT_BINARY_DIR}/i386)
set(_targets pacer_gl_shim pacer_gl_pacing)
set(_args
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
  -DCMAKE_C_FLAGS=-m32 -DCMAKE_CXX_FLAGS=-m32 -DCMAKE_ASM_FLAGS=-m32
  -DPACER_BUILD_TESTS=OFF -DPACER_BUILD_BENCH=OFF -DPACER_BUILD_DEMO=OFF -DPACER_BUILD_TOOLS=OFF
  -DPACER_INSTALL=OFF -DPACER_BUILD_I386=OFF -DPACER_BUILD_GL_PRELOAD=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON)
set(_products ${_i386}/gl_preload/libpacer_gl.so ${_i386}/gl_preload/pacer/libpacer_gl_pacing.so)
if(TARGET pacer_vulkan_layer AND Vulkan_INCLUDE_DIR AND Vulkan_LIBRARY)
  list(APPEND _targets pacer_vulkan_layer)
  list(APPEND _args -DPACER_BUILD_VULKAN_LAYER=ON -DVulkan_INCLUDE_DIR=${Vulkan_INCLUDE_DIR}
                    -DVulkan_LIBRARY=${Vulkan_LIBRARY})
  list(APPEND _products ${_i386}/vulkan_layer/libVkLayer_pacer_frame_pacing.so)
else()
  list(APPEND _args -DPACER_BUILD_VULKAN_LAYER=OFF)
endif()
ExternalProject_Add(pacer_i386
  SOURCE_DIR ${PROJECT_SOURCE_DIR}
  BINARY_DIR ${_i386}
  CMAKE_ARGS ${_args}
  BUILD_COMMAND ${CMAKE_COMMAND} --build ${_i386} --parallel 2 --target ${_targets}
  BUILD_BYPRODUCTS ${_products}
  INSTALL_COMMAND ""
  BUILD_ALWAYS ON
  EXCLUDE_FROM_ALL OFF)
message(STATUS "pacer: 32-bit interposer and layer: yes (${_i386}: ${_targets})")

if(PACER_INSTALL)
  install(PROGRAMS ${_i386}/gl_preload/libpacer_gl.so DESTINATION lib/i386-linux-gnu COMPONENT gl_preload)
  install(PROGRAMS ${_i386}/gl_preload/pacer/libpacer_gl_pacing.so DESTINATION lib/i386-linux-gnu/pacer
          COMPONENT gl_preload)
  if(TARGET pacer_vulkan_layer AND Vulkan_INCLUDE_DIR AND Vulkan_LIBRARY)
    install(PROGRAMS ${_i386}/vulkan_layer/libVkLayer_pacer_frame_pacing.so DESTINATION lib/i386-linux-gnu
            COMPONENT vulkan_layer)
  endif()
endif()
