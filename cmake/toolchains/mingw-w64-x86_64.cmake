# Cross-compile pacer for Windows x86-64 with Debian's mingw-w64 (g++-mingw-w64-x86-64-posix).
#
#   cmake --preset windows-mingw && cmake --build --preset windows-mingw -j2
#   ctest --preset windows-mingw            # runs the .exe files under Wine
#
# The "posix" flavour of the compiler is required: its libstdc++ has std::thread and std::mutex
# (through winpthreads); the "win32" flavour does not in GCC 12.
# Executables are linked with -static so that libgcc, libstdc++ and winpthread are inside each
# .exe: Wine (and a user's Windows machine) then needs no mingw DLLs next to them.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(PACER_MINGW_TRIPLE x86_64-w64-mingw32)
find_program(CMAKE_C_COMPILER NAMES ${PACER_MINGW_TRIPLE}-gcc-posix ${PACER_MINGW_TRIPLE}-gcc REQUIRED)
find_program(CMAKE_CXX_COMPILER NAMES ${PACER_MINGW_TRIPLE}-g++-posix ${PACER_MINGW_TRIPLE}-g++ REQUIRED)
find_program(CMAKE_RC_COMPILER NAMES ${PACER_MINGW_TRIPLE}-windres)

# Search the mingw sysroot for libraries and headers, never the host's /usr (glibc headers would
# break the build). Programs (code generators, wine) still come from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${PACER_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc -static-libstdc++")

# Run the test executables under Wine (ctest, gtest_discover_tests). The wrapper sets a private
# WINEPREFIX and silences Wine's own diagnostics; see cmake/windows/wine-run.sh.
if(NOT DEFINED CMAKE_CROSSCOMPILING_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/../windows/wine-run.sh")
endif()
