# ctest driver: builds the Debian packages of the build tree under test (`cpack -G DEB`), checks
# their control fields and contents, unpacks them into a scratch root (`dpkg-deb -x`, no root needed),
# then builds against the unpacked tree both ways a user would: tests/consumer and the C-only
# tests/consumer/c_only with find_package (CMAKE_PREFIX_PATH), and plain compiler command lines
# (C++ and C) with `pkg-config --cflags --libs pacer`.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(run)  # runs a command; OUTPUT_VARIABLE out receives its standard output
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE stdout
                  ERROR_VARIABLE stderr)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${stdout}${stderr}")
  endif()
  string(STRIP "${stdout}" stdout)
  set(out "${stdout}" PARENT_SCOPE)
endfunction()

function(expect what text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "package: ${what}: expected /${regex}/ in:\n${text}")
  endif()
  message(STATUS "package: ok: ${what}")
endfunction()

# ---- The packages -------------------------------------------------------------------------------
# Two (cmake/PacerPackaging.cmake): pacer, a player's (the layer, the interposer, pacer-run, the
# tool), and libpacer-dev, an engine programmer's (headers, static library, CMake package, pacer.pc).
run(${CPACK} -G DEB -C ${CONFIG} --config "${BUILD_DIR}/CPackConfig.cmake" -B "${WORK_DIR}/cpack")
file(GLOB all_debs "${WORK_DIR}/cpack/*.deb")
foreach(which IN ITEMS pacer libpacer-dev)
  file(GLOB debs "${WORK_DIR}/cpack/${which}_${VERSION}_*.deb")
  list(LENGTH debs n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "package: expected one ${which}_${VERSION}_<arch>.deb, found: ${all_debs}")
  endif()
  get_filename_component(deb_name "${debs}" NAME)
  message(STATUS "package: built ${deb_name}")
  set(deb_${which} "${debs}")
endforeach()
list(LENGTH all_debs n)
if(NOT n EQUAL 2)
  message(FATAL_ERROR "package: expected the two packages, found: ${all_debs}")
endif()

# deb: its fields and contents as `fields`, `contents`; the programs in /usr/bin as `programs`.
macro(read_package deb)
  run(dpkg-deb --field "${deb}" Package Version Section Maintainer Depends Description)
  set(fields "${out}")
  expect("maintainer" "${fields}" "Maintainer: [^\n]+")
  expect("description" "${fields}" "Description: [^\n]+\n [^\n]+")
  run(dpkg-deb --contents "${deb}")
  set(contents "${out}")
  string(REGEX MATCHALL " \\./usr/bin/[^\n]+" programs "${contents}")
endmacro()
function(contains what)
  foreach(file IN LISTS ARGN)
    string(REPLACE "+" "\\+" pattern "./usr/${file}")
    expect("${what} contains /usr/${file}" "${contents}" " ${pattern}(\n|$)")
  endforeach()
endfunction()

read_package("${deb_libpacer-dev}")
expect("libpacer-dev: name and version" "${fields}" "Package: libpacer-dev\nVersion: ${VERSION}\n")
expect("libpacer-dev: section" "${fields}" "Section: libdevel")
# A static library and headers: the C and C++ standard libraries, nothing else.
expect("libpacer-dev: depends on libc and libstdc++ only" "${fields}"
       "Depends: libc6-dev \\| libc-dev, libstdc\\+\\+-dev\n")
contains(libpacer-dev include/pacer/pacer.hpp include/pacer/version.hpp lib/libpacer.a
         lib/cmake/pacer/pacerConfig.cmake lib/cmake/pacer/pacerConfigVersion.cmake
         lib/cmake/pacer/pacerTargets.cmake lib/pkgconfig/pacer.pc
         share/doc/pacer/LICENSE share/doc/pacer/CHANGELOG.md share/doc/libpacer-dev/copyright)
if(programs)
  message(FATAL_ERROR "package: libpacer-dev holds a program: ${programs}")
endif()
if(contents MATCHES "pacer_gl|VkLayer|pacerToolsTargets")
  message(FATAL_ERROR "package: libpacer-dev holds the player's files:\n${contents}")
endif()

# The player's: the Vulkan layer and its two manifests, the GL interposer, pacer-run (a script) and
# the tool (with its CMake target), and the 32-bit libraries beside.
read_package("${deb_pacer}")
expect("pacer: name and version" "${fields}" "Package: pacer\nVersion: ${VERSION}\n")
expect("pacer: section" "${fields}" "Section: utils")
expect("pacer: depends on what the tool links" "${fields}" "Depends: libc6, [^\n]*libsdl2-2.0-0")
if(contents MATCHES "include/pacer|libpacer\\.a|pacer\\.pc|doc/pacer/LICENSE")
  message(FATAL_ERROR "package: pacer holds the developer's files:\n${contents}")
endif()
contains(pacer share/doc/pacer/copyright)
if(HAVE_LAYER)
  contains(pacer ${INJECT_LIBDIR}/libVkLayer_pacer_frame_pacing.so
           share/vulkan/explicit_layer.d/VkLayer_pacer_frame_pacing.json
           share/vulkan/implicit_layer.d/VkLayer_pacer_frame_pacing.json)
endif()
if(HAVE_GL)
  contains(pacer ${INJECT_LIBDIR}/libpacer_gl.so ${INJECT_LIBDIR}/pacer/libpacer_gl_pacing.so bin/pacer-run)
  list(REMOVE_ITEM programs " ./usr/bin/pacer-run")
endif()
if(PACER_CLI)
  contains(pacer bin/pacer lib/cmake/pacer/pacerToolsTargets.cmake)
  list(REMOVE_ITEM programs " ./usr/bin/pacer")
endif()
if(HAVE_I386)  # the 32-bit builds beside (cmake/PacerI386.cmake)
  set(_i386 lib/i386-linux-gnu/libpacer_gl.so lib/i386-linux-gnu/pacer/libpacer_gl_pacing.so)
  if(HAVE_LAYER)
    list(APPEND _i386 lib/i386-linux-gnu/libVkLayer_pacer_frame_pacing.so)
  endif()
  contains(pacer ${_i386})
endif()
if(programs)
  message(FATAL_ERROR "package: pacer holds a program besides pacer-run and pacer: ${programs}")
endif()

# ---- Unpacked, as a user's machine sees it ------------------------------------------------------
set(root "${WORK_DIR}/root")
run(dpkg-deb -x "${deb_pacer}" "${root}")
run(dpkg-deb -x "${deb_libpacer-dev}" "${root}")
set(root_cli "")
set(expect_cli OFF)
if(PACER_CLI)
  set(root_cli "${root}/usr/bin/pacer")
  set(expect_cli ON)
endif()

# pacer-run from the unpacked tree paces glxgears and vkcube, and the package's tool reads their
# captures (tests/gl/gl_test.sh unpacked): the package's files alone, found relative to the script.
if(HAVE_GL AND GL_TEST)
  execute_process(COMMAND "${GL_TEST}" unpacked "${root_cli}" "${BUILD_DIR}" "${WORK_DIR}/gl" "${root}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE gl_out ERROR_VARIABLE gl_out)
  if(rc EQUAL 77)
    message(STATUS "package: skipped pacing from the package: ${gl_out}")
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "package: pacer-run from the unpacked package:\n${gl_out}")
  else()
    message(STATUS "package: ok: pacer-run from the unpacked package paces glxgears and vkcube:\n${gl_out}")
  endif()
endif()

# find_package: the consumer project, with its version checks (tests/consumer/CMakeLists.txt).
set(build "${WORK_DIR}/consumer")
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/consumer" -B "${build}" -G "${GENERATOR}"
    -DPACER_HOW=find_package -DCMAKE_BUILD_TYPE=${CONFIG} "-DCMAKE_PREFIX_PATH=${root}/usr")
run(${CMAKE_COMMAND} --build "${build}" -j 2 --target consumer)
run("${build}/consumer")
expect("find_package(pacer) consumer runs" "${out}" "consumer: pacer ${VERSION}, .* ok")

# find_package from a C-only project (tests/consumer/c_only): the C game and README's C example
# link pacer::pacer alone; with the pacer package beside, pacer::pacer_cli reads the game's capture.
set(c_build "${WORK_DIR}/c_only")
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/consumer/c_only" -B "${c_build}" -G "${GENERATOR}"
    -DPACER_HOW=find_package -DCMAKE_BUILD_TYPE=${CONFIG} "-DCMAKE_PREFIX_PATH=${root}/usr"
    "-DPACER_README=${SOURCE_DIR}/README.md" -DPACER_EXPECT_CLI=${expect_cli})
run(${CMAKE_COMMAND} --build "${c_build}" -j 2 --target game readme_example)
run("${c_build}/game" "${c_build}/game.csv" "${VERSION}")
expect("find_package(pacer) from project(game C): the C game runs" "${out}" "game: pacer ${VERSION}, [0-9]+ frames, ok")

# pkg-config, found through PKG_CONFIG_PATH only: pacer.pc finds its prefix from its own place.
set(ENV{PKG_CONFIG_PATH} "${root}/usr/lib/pkgconfig")
run(${PKG_CONFIG} --modversion pacer)
expect("pkg-config --modversion" "${out}" "^${VERSION}$")
run(${PKG_CONFIG} --cflags pacer)
separate_arguments(cflags UNIX_COMMAND "${out}")
string(FIND "${out}" "-I${root}/usr/lib/pkgconfig/../../include" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "package: pkg-config --cflags pacer does not point into ${root}: ${out}")
endif()
run(${PKG_CONFIG} --libs pacer)
separate_arguments(libs UNIX_COMMAND "${out}")
message(STATUS "package: pkg-config --cflags --libs pacer: ${cflags} ${libs}")
# Compiled as C++20, linked by the C compiler driver, which adds no C++ runtime of its own.
run(${CXX} -std=c++20 ${cflags} -c "${SOURCE_DIR}/tests/package/frames.cpp" -o "${WORK_DIR}/frames.o")
run(${CC} "${WORK_DIR}/frames.o" ${libs} -o "${WORK_DIR}/frames")
run("${WORK_DIR}/frames" "${VERSION}")
expect("pkg-config build links with cc and runs" "${out}" "frames: pacer ${VERSION}, frame [0-9]+, ok")

# A C program, the way a Makefile builds it: cc $(pkg-config --cflags --libs pacer), nothing else.
run(${CC} -std=c99 -Wall -Wextra -Wpedantic -Wconversion -Werror ${cflags} "${SOURCE_DIR}/tests/consumer/c_consumer.c"
    ${libs} -o "${WORK_DIR}/c_consumer")
run("${WORK_DIR}/c_consumer")
expect("C program built with pkg-config runs" "${out}" "consumer_c: frame [0-9]+, [0-9]+ log lines, ok")
run(${CC} -std=c99 -Wall -Wextra -Wpedantic -Wconversion -Werror ${cflags} "${SOURCE_DIR}/tests/consumer/c_only/game.c"
    ${libs} -o "${WORK_DIR}/game")
run("${WORK_DIR}/game" "${WORK_DIR}/game.csv" "${VERSION}")
expect("C game built with pkg-config runs" "${out}" "game: pacer ${VERSION}, [0-9]+ frames, ok")
