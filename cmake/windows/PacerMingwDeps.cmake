# Dependencies of the Windows cross build, from Debian packages only, handed to the project's
# unchanged find_package() calls through a CMake dependency provider (CMake >= 3.24).
#
# Loaded by the windows-mingw preset as CMAKE_PROJECT_TOP_LEVEL_INCLUDES. Debian ships no mingw
# builds of spdlog, {fmt} or GoogleTest, so:
#   spdlog, fmt  header-only, from libspdlog-dev / libfmt-dev. Only /usr/include/spdlog and
#                /usr/include/fmt are exposed (symlinks in the build tree): adding /usr/include
#                itself would put glibc's headers in front of mingw's.
#   GTest        built from source with the project's compiler, from /usr/src/googletest
#                (package googletest), as GTest::gtest, GTest::gtest_main, GTest::gmock(_main).
# Any other find_package() goes to CMake's normal search inside the mingw sysroot.
include_guard(GLOBAL)

set(PACER_DEBIAN_INCLUDEDIR "/usr/include" CACHE PATH
    "Host folder holding the spdlog/ and fmt/ header folders for the cross build")
set(PACER_GOOGLETEST_SOURCE_DIR "/usr/src/googletest" CACHE PATH
    "GoogleTest source tree (Debian package googletest) built for the cross build")

# gtest_discover_tests() lists the tests when ctest runs (under the emulator) instead of as a
# post-build step, so building never needs Wine.
set(CMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE PRE_TEST)

function(_pacer_debian_header_targets)
  if(TARGET fmt::fmt)
    return()
  endif()
  set(dir "${CMAKE_BINARY_DIR}/_deps/debian-headers")
  file(MAKE_DIRECTORY "${dir}")
  foreach(lib IN ITEMS spdlog fmt)
    set(src "${PACER_DEBIAN_INCLUDEDIR}/${lib}")
    if(NOT EXISTS "${src}/")
      message(FATAL_ERROR "${src} not found: apt-get install libspdlog-dev libfmt-dev")
    endif()
    if(NOT EXISTS "${dir}/${lib}")
      file(CREATE_LINK "${src}" "${dir}/${lib}" SYMBOLIC)
    endif()
  endforeach()

  add_library(fmt::fmt INTERFACE IMPORTED GLOBAL)
  set_target_properties(fmt::fmt PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${dir}"
    INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${dir}"
    INTERFACE_COMPILE_DEFINITIONS "FMT_HEADER_ONLY")
  # Debian's spdlog/tweakme.h already defines SPDLOG_FMT_EXTERNAL (no bundled {fmt}); without
  # SPDLOG_COMPILED_LIB spdlog is header-only.
  add_library(spdlog::spdlog INTERFACE IMPORTED GLOBAL)
  set_target_properties(spdlog::spdlog PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${dir}"
    INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${dir}"
    INTERFACE_COMPILE_DEFINITIONS "SPDLOG_FMT_EXTERNAL"
    INTERFACE_LINK_LIBRARIES "fmt::fmt")
  add_library(spdlog::spdlog_header_only ALIAS spdlog::spdlog)
endfunction()

function(_pacer_googletest)
  if(TARGET GTest::gtest)
    return()
  endif()
  if(NOT EXISTS "${PACER_GOOGLETEST_SOURCE_DIR}/CMakeLists.txt")
    message(FATAL_ERROR "${PACER_GOOGLETEST_SOURCE_DIR} not found: apt-get install googletest")
  endif()
  set(BUILD_GMOCK ON)
  set(INSTALL_GTEST OFF)
  add_subdirectory("${PACER_GOOGLETEST_SOURCE_DIR}" "${CMAKE_BINARY_DIR}/_deps/googletest"
                   EXCLUDE_FROM_ALL SYSTEM)
  # GoogleTest >= 1.11 defines GTest::gtest etc. itself; add what is missing, including the
  # names of CMake's FindGTest before 3.20.
  foreach(pair IN ITEMS gtest:gtest gtest_main:gtest_main gmock:gmock gmock_main:gmock_main
                        GTest:gtest Main:gtest_main)
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 name)
    list(GET pair 1 target)
    if(NOT TARGET GTest::${name})
      add_library(GTest::${name} ALIAS ${target})
    endif()
  endforeach()
endfunction()

function(pacer_mingw_provide_dependency method name)
  if(name STREQUAL "spdlog" OR name STREQUAL "fmt")
    _pacer_debian_header_targets()
    set(${name}_FOUND TRUE PARENT_SCOPE)
  elseif(name STREQUAL "GTest")
    _pacer_googletest()
    set(GTest_FOUND TRUE PARENT_SCOPE)
    set(GTEST_FOUND TRUE PARENT_SCOPE)
  endif()
endfunction()

cmake_language(SET_DEPENDENCY_PROVIDER pacer_mingw_provide_dependency
               SUPPORTED_METHODS FIND_PACKAGE)
