# ctest driver: builds tests/consumer against pacer, by add_subdirectory or by find_package after
# `cmake --install` of the build tree under test, then runs each of its checks and reports every
# one that fails (not only the first): the README example, self-contained headers (as C++20 and
# C++17), a C++17 frame loop, a C program, the SDL2 adapter, designated initializers, and no
# spdlog or {fmt} handed to the consumer. Then a C-only project (tests/consumer/c_only: a C game,
# README's C example, pacer::pacer_cli when the tool was installed) the same way, and with
# find_package also a project without languages that wants the tool alone (tools_only/) and the C
# game built with cc and pkg-config; and the example project README.md shows (examples/consumer),
# its files as they are. VERSION: the version the C programs must report
# (pacer_version()), the project's.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
if(NOT CONFIG)
  set(CONFIG RelWithDebInfo)
endif()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

set(failed)
function(check what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    message(STATUS "consumer.${HOW}: ok: ${what}")
  else()
    message(STATUS "consumer.${HOW}: FAILED: ${what}")
    set(failed ${failed} "${what}" PARENT_SCOPE)
  endif()
endfunction()

set(args -DPACER_HOW=${HOW} -DCMAKE_BUILD_TYPE=${CONFIG} -G "${GENERATOR}")
if(HOW STREQUAL "add_subdirectory")
  list(APPEND args -DPACER_SOURCE_DIR=${SOURCE_DIR})
else()
  run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix" --config ${CONFIG})
  list(APPEND args -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
endif()
set(build "${WORK_DIR}/build")

# pacer must not need spdlog or {fmt}, neither installed (find_package) nor built inside the
# engine's tree (add_subdirectory): the consumer is configured with both hidden. When that fails,
# the remaining checks still run, in a configuration that can see them.
check("configures with spdlog and {fmt} hidden (CMAKE_DISABLE_FIND_PACKAGE_*)"
      ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/consumer" -B "${build}" ${args}
      -DCMAKE_DISABLE_FIND_PACKAGE_spdlog=ON -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON)
if(failed)
  file(REMOVE_RECURSE "${build}")
endif()
if(NOT EXISTS "${build}/CMakeCache.txt")
  run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/consumer" -B "${build}" ${args})
endif()

# Builds target; when that worked, runs it.
function(build_and_run target what)
  check("${what} builds with -Wall -Wextra -Wpedantic -Werror"
        ${CMAKE_COMMAND} --build "${build}" -j 2 --target ${target})
  if(EXISTS "${build}/${target}" OR EXISTS "${build}/${target}.exe")
    check("${what} runs" "${build}/${target}")
  endif()
  set(failed ${failed} PARENT_SCOPE)
endfunction()

build_and_run(consumer "README embedding example")
check("every public header compiles alone with -Wall -Wextra -Wpedantic -Werror"
      ${CMAKE_COMMAND} --build "${build}" -j 2 --target consumer_headers)
check("every public header compiles alone as C++17 with -Wall -Wextra -Wpedantic -Werror"
      ${CMAKE_COMMAND} --build "${build}" -j 2 --target consumer_headers_cxx17)
build_and_run(consumer_cxx17 "C++17 frame loop")
build_and_run(consumer_c "C99 program on pacer/pacer.h")
check("pacer::sdl2's header compiles as C++20 and C++17 with -Wall -Wextra -Wpedantic -Werror (when SDL2 is found)"
      ${CMAKE_COMMAND} --build "${build}" -j 2 --target consumer_sdl2)
check("designated initializers of the config structs compile with -Wextra -Werror"
      ${CMAKE_COMMAND} --build "${build}" -j 2 --target consumer_designated)
check("no spdlog or {fmt} in pacer::pacer's INTERFACE_* properties"
      ${CMAKE_COMMAND} --build "${build}" --target consumer_dependencies)

# ---- A C game: project(game C), pacer::pacer and nothing else (c_only/) -------------------------
set(c_build "${WORK_DIR}/c_only")
set(c_args -DPACER_HOW=${HOW} -DCMAKE_BUILD_TYPE=${CONFIG} -G "${GENERATOR}" "-DPACER_README=${SOURCE_DIR}/README.md")
if(HOW STREQUAL "add_subdirectory")
  list(APPEND c_args -DPACER_SOURCE_DIR=${SOURCE_DIR})
else()
  # pacer::pacer_cli exactly when the tool was installed.
  file(GLOB installed_tool "${WORK_DIR}/prefix/bin/pacer" "${WORK_DIR}/prefix/bin/pacer.exe")
  if(installed_tool)
    list(APPEND c_args -DPACER_EXPECT_CLI=ON)
  else()
    list(APPEND c_args -DPACER_EXPECT_CLI=OFF)
  endif()
  list(APPEND c_args -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
endif()
check("a C-only project (project(game C)) configures with pacer::pacer"
      ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/consumer/c_only" -B "${c_build}" ${c_args})
if(EXISTS "${c_build}/CMakeCache.txt")
  check("the C game links pacer::pacer alone and builds with -Wall -Wextra -Wpedantic -Wconversion -Werror"
        ${CMAKE_COMMAND} --build "${c_build}" -j 2 --target game)
  check("the C game paces, writes a capture and reads back its statistics"
        "${c_build}/game" "${c_build}/game.csv" "${VERSION}")
  check("README's \"From C\" example builds with -Wall -Wextra -Wpedantic -Wconversion -Werror"
        ${CMAKE_COMMAND} --build "${c_build}" -j 2 --target readme_example)
  # 30 frames: the header and a row for each frame but the first, which has no frame time.
  file(REMOVE "${c_build}/frames.csv")
  execute_process(COMMAND "${c_build}/readme_example" WORKING_DIRECTORY "${c_build}" RESULT_VARIABLE rc)
  set(lines 0)
  if(EXISTS "${c_build}/frames.csv")
    file(STRINGS "${c_build}/frames.csv" lines)
    list(LENGTH lines lines)
  endif()
  if(rc EQUAL 0 AND lines EQUAL 30)
    check("README's \"From C\" example runs and writes a capture of its 30 frames" ${CMAKE_COMMAND} -E true)
  else()
    check("README's \"From C\" example runs (exit ${rc}) and writes a capture of its 30 frames (${lines} lines)"
          ${CMAKE_COMMAND} -E false)
  endif()
  if(installed_tool)
    check("pacer::pacer_cli from find_package(pacer) analyzes the game's capture"
          ${CMAKE_COMMAND} --build "${c_build}" --target analyze_capture)
  endif()
endif()

# ---- The tool alone: a project without languages (tools_only/) ----------------------------------
if(HOW STREQUAL "find_package")
  check("find_package(pacer) in project(x NONE), pacer::pacer_cli there when installed (tools_only/)"
        ${CMAKE_COMMAND} -DPREFIX=${WORK_DIR}/prefix -DSOURCE_DIR=${SOURCE_DIR} -DWORK_DIR=${WORK_DIR}/tools_only
        "-DGENERATOR=${GENERATOR}" -P "${SOURCE_DIR}/tests/consumer/tools_only/run.cmake")
endif()

# ---- examples/consumer: the game project README.md shows in "Using pacer in your project" ---------
# Its files as they are (tests/docs/snippets.py checks that README.md shows them verbatim), with the
# host's strict flags from the command line: with find_package against the prefix installed above
# (-DCMAKE_PREFIX_PATH, as README says); with add_subdirectory, the same files with README's one
# replacement line for a vendored copy, find_package(pacer CONFIG REQUIRED) -> add_subdirectory.
set(example_source "${SOURCE_DIR}/examples/consumer")
set(example_build "${WORK_DIR}/example")
set(example_args -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=${CONFIG})
if(NOT GENERATOR MATCHES "Visual Studio")
  list(APPEND example_args "-DCMAKE_CXX_FLAGS=-Wall -Wextra -Wpedantic -Werror")
endif()
if(HOW STREQUAL "find_package")
  list(APPEND example_args -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
  set(example_how "find_package against the installed prefix (CMAKE_PREFIX_PATH)")
else()
  file(READ "${example_source}/CMakeLists.txt" example_text)
  string(REPLACE "find_package(pacer CONFIG REQUIRED)" "add_subdirectory(\"${SOURCE_DIR}\" pacer)"
         vendored "${example_text}")
  if(vendored STREQUAL example_text)
    message(FATAL_ERROR "examples/consumer/CMakeLists.txt has no find_package(pacer CONFIG REQUIRED) line to replace")
  endif()
  set(example_source "${WORK_DIR}/example-src")
  file(MAKE_DIRECTORY "${example_source}")
  file(WRITE "${example_source}/CMakeLists.txt" "${vendored}")
  file(COPY "${SOURCE_DIR}/examples/consumer/main.cpp" DESTINATION "${example_source}")
  set(example_how "add_subdirectory of the source tree in place of find_package")
endif()
check("examples/consumer configures: ${example_how}"
      ${CMAKE_COMMAND} -S "${example_source}" -B "${example_build}" ${example_args})
if(EXISTS "${example_build}/CMakeCache.txt")
  check("examples/consumer builds with -Wall -Wextra -Wpedantic -Werror"
        ${CMAKE_COMMAND} --build "${example_build}" -j 2 --target game)
  execute_process(COMMAND "${example_build}/game" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(rc EQUAL 0 AND out MATCHES "^59 frame times, p50 [0-9.]+ ms, p99 [0-9.]+ ms\n$")
    string(STRIP "${out}" out)
    check("examples/consumer's game runs: ${out}" ${CMAKE_COMMAND} -E true)
  else()
    check("examples/consumer's game runs (exit ${rc}) and prints its 59 frame times (\"${out}\")"
          ${CMAKE_COMMAND} -E false)
  endif()
endif()

# ---- The same game with pkg-config, as a Makefile builds it --------------------------------------
if(HOW STREQUAL "find_package")
  find_program(PKG_CONFIG NAMES pkg-config pkgconf)
  find_program(CC NAMES cc gcc clang)
  file(GLOB_RECURSE pc "${WORK_DIR}/prefix/pacer.pc")
  if(PKG_CONFIG AND CC AND pc AND NOT WIN32)
    list(GET pc 0 pc)
    get_filename_component(pc_dir "${pc}" DIRECTORY)
    set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
    execute_process(COMMAND ${PKG_CONFIG} --cflags --libs pacer OUTPUT_VARIABLE flags
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    separate_arguments(flags UNIX_COMMAND "${flags}")
    check("cc game.c $(pkg-config --cflags --libs pacer) builds with -Wall -Wextra -Wpedantic -Wconversion -Werror"
          ${CC} -std=c99 -Wall -Wextra -Wpedantic -Wconversion -Werror "${SOURCE_DIR}/tests/consumer/c_only/game.c"
          ${flags} -o "${WORK_DIR}/game_pkgconfig")
    check("the pkg-config C game runs" "${WORK_DIR}/game_pkgconfig" "${WORK_DIR}/game_pkgconfig.csv"
          "${VERSION}")
  else()
    message(STATUS "consumer.${HOW}: pkg-config, a C compiler or pacer.pc missing: the pkg-config C build is not checked")
  endif()
endif()

if(failed)
  list(LENGTH failed n)
  list(JOIN failed "\n  " text)
  message(FATAL_ERROR "consumer.${HOW}: ${n} check(s) failed:\n  ${text}")
endif()
