# What an installed pacer carries besides the CMake package (pacer/CMakeLists.txt): pacer.pc for
# pkg-config, the license and changelog, and, when pacer is the top-level project, the Debian
# packages (`cpack -G DEB` in the build tree: pacer and libpacer-dev).
include(GNUInstallDirs)
find_package(Threads REQUIRED)

# ---- pkg-config ---------------------------------------------------------------------------------
# A static libpacer does not record what it links: a Makefile or C user must be told the C++
# runtime (the libraries pacer/CMakeLists.txt gives C links of pacer::pacer, PACER_CXX_RUNTIME),
# the system libraries it links privately (PACER_SYSTEM_LIBS: on Linux CMAKE_DL_LIBS, for the
# dlopen of libdbus) and the threads flag. `pkg-config --libs` without --static omits
# Libs.private, so for the static library they go in Libs.
get_target_property(_pacer_runtime_libs pacer PACER_CXX_RUNTIME)
get_target_property(_pacer_system_libs pacer PACER_SYSTEM_LIBS)
if(NOT _pacer_system_libs)
  set(_pacer_system_libs)
endif()
set(_pacer_runtime)
foreach(_lib IN LISTS _pacer_runtime_libs _pacer_system_libs)
  list(APPEND _pacer_runtime "-l${_lib}")
endforeach()
list(APPEND _pacer_runtime ${CMAKE_THREAD_LIBS_INIT})
list(JOIN _pacer_runtime " " _pacer_runtime)
get_target_property(_pacer_type pacer TYPE)
if(_pacer_type STREQUAL "STATIC_LIBRARY")
  set(PACER_PC_LIBS "${_pacer_runtime}")
  set(PACER_PC_LIBS_PRIVATE "")
else()
  set(PACER_PC_LIBS "")
  set(PACER_PC_LIBS_PRIVATE "${_pacer_runtime}")
endif()
# Relative directories are written relative to ${prefix}, and ${prefix} relative to the file.
file(RELATIVE_PATH PACER_PC_UP "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
string(REGEX REPLACE "/$" "" PACER_PC_UP "${PACER_PC_UP}")
foreach(_dir IN ITEMS LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_dir}}")
    set(PACER_PC_${_dir} "${CMAKE_INSTALL_${_dir}}")
  else()
    set(PACER_PC_${_dir} "\${prefix}/${CMAKE_INSTALL_${_dir}}")
  endif()
endforeach()
configure_file("${CMAKE_CURRENT_LIST_DIR}/pacer.pc.in" "${PROJECT_BINARY_DIR}/pacer.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/pacer.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/CHANGELOG.md"
        DESTINATION "${CMAKE_INSTALL_DOCDIR}")

# ---- Debian package -----------------------------------------------------------------------------
# Only for pacer's own build: an engine that add_subdirectory()s pacer keeps its own CPack setup.
if(NOT PROJECT_IS_TOP_LEVEL)
  return()
endif()
set(PACER_PACKAGE_MAINTAINER "the pacer authors" CACHE STRING
    "Maintainer field of the Debian package (\"Name <e-mail>\")")
# Two packages, one per reader (component groups, cpack's ONE_PER_GROUP):
#   pacer          a player's: the Vulkan layer (its library and both manifests), the GL
#                  interposer, pacer-run and the `pacer` tool (to read what a capture says), the
#                  32-bit libraries beside; the tool's imported target for CMake with it
#   libpacer-dev   an engine programmer's: the headers, the static library, the CMake package,
#                  pacer.pc and the documents (the library's install rules, component Unspecified)
set(CPACK_PACKAGE_NAME pacer)
set(CPACK_PACKAGE_VENDOR "the pacer authors")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGE_CONTACT "${PACER_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${PACER_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
# Debian wants /usr/share/doc/PACKAGE/copyright in every package: the license under each
# package's name, in components of their own that only the packages install (EXCLUDE_FROM_ALL: a
# `cmake --install` puts the license in share/doc/pacer/LICENSE alone).
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/doc/pacer"
        RENAME copyright COMPONENT player_copyright EXCLUDE_FROM_ALL)
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/doc/libpacer-dev"
        RENAME copyright COMPONENT dev_copyright EXCLUDE_FROM_ALL)
set(CPACK_COMPONENTS_ALL Unspecified dev_copyright player_copyright)
foreach(_component IN ITEMS vulkan_layer gl_preload tools)
  if((_component STREQUAL "vulkan_layer" AND TARGET pacer_vulkan_layer)
     OR (_component STREQUAL "gl_preload" AND TARGET pacer_gl_shim)
     OR (_component STREQUAL "tools" AND TARGET pacer_cli))
    list(APPEND CPACK_COMPONENTS_ALL ${_component})
  endif()
endforeach()
# Debian wraps nothing: the lines are kept under 80 columns here (the synopsis line is
# CPACK_PACKAGE_DESCRIPTION_SUMMARY).
string(JOIN "\n" _pacer_player_description
  "pacer holds a game to a frame rate with hybrid sleep: the OS sleep for the part"
  "of the wait the OS can be trusted with, learned online, then a short spin to the"
  "exact deadline. This package paces and captures games that do not embed pacer:"
  "its Vulkan layer and its OpenGL interposer, for 64-bit and 32-bit games, started"
  "by one launch line (pacer-run --hz 60 -- %command% in Steam's launch options),"
  "and the pacer tool, which reads the captures (pacer analyze FILE).")
string(JOIN "\n" _pacer_dev_description
  "pacer holds a game engine's main loop to a frame rate with hybrid sleep: the OS"
  "sleep for the part of the wait the OS can be trusted with, learned online from"
  "the machine's wake-up lateness, then a short spin to the exact deadline. It also"
  "detects vsync, and offers a fixed-step accumulator with interpolation and frame"
  "statistics. This package holds the C++20 headers, the static library, the CMake"
  "package (find_package(pacer)) and pacer.pc for pkg-config.")
set(CPACK_DEBIAN_PLAYER_DESCRIPTION "${_pacer_player_description}")
set(CPACK_DEBIAN_DEV_DESCRIPTION "${_pacer_dev_description}")
include(CPackComponent)
cpack_add_component_group(player)
cpack_add_component_group(dev)
cpack_add_component(Unspecified GROUP dev)
cpack_add_component(dev_copyright GROUP dev)
foreach(_component IN ITEMS vulkan_layer gl_preload tools player_copyright)
  cpack_add_component(${_component} GROUP player)
endforeach()
set(CPACK_DEBIAN_PLAYER_PACKAGE_NAME pacer)
set(CPACK_DEBIAN_PLAYER_PACKAGE_SECTION utils)
# The layer and the interposer link the C++ runtime statically and need libc alone; the tool
# links what it reads and draws with (SDL2 for `pacer run`, xcb's Present and wayland-client for
# `pacer probe`).
set(CPACK_DEBIAN_PLAYER_PACKAGE_DEPENDS
    "libc6, libstdc++6, libgcc-s1, libsdl2-2.0-0, libxcb1, libxcb-present0, libwayland-client0")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libpacer-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# Headers and a static library: a user needs a C++20 standard library to build against them
# (libstdc++-dev is provided by every libstdc++-N-dev); spdlog only for pacer::spdlog.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libc6-dev | libc-dev, libstdc++-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS "pacer, pkg-config, cmake, libspdlog-dev")
find_program(PACER_DPKG dpkg)
mark_as_advanced(PACER_DPKG)
if(PACER_DPKG)
  execute_process(COMMAND "${PACER_DPKG}" --print-architecture
                  OUTPUT_VARIABLE _pacer_arch OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE "${_pacer_arch}")
  set(CPACK_DEBIAN_PLAYER_FILE_NAME "pacer_${PROJECT_VERSION}_${_pacer_arch}.deb")
  set(CPACK_DEBIAN_DEV_FILE_NAME "libpacer-dev_${PROJECT_VERSION}_${_pacer_arch}.deb")
  set(CPACK_GENERATOR DEB)
else()
  set(CPACK_GENERATOR TGZ)
endif()
include(CPack)
