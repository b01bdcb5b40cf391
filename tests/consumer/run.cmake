# ctest driver: builds tests/consumer against pacer, by add_subdirectory or by find_package after
# `cmake --install` of the build tree under test, then runs each of its checks and reports every
# one that fails (not only the first): the README example, self-contained headers (as C++20 and
# C++17), a C++17 frame loop, a C program, the SDL2 adapter, designated initializers, and no
# spdlog or {fmt} handed to the consumer.
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

if(failed)
  list(LENGTH failed n)
  list(JOIN failed "\n  " text)
  message(FATAL_ERROR "consumer.${HOW}: ${n} check(s) failed:\n  ${text}")
endif()
