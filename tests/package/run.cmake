# ctest driver: builds the Debian package of the build tree under test (`cpack -G DEB`), checks
# its control fields and contents, unpacks it into a scratch root (`dpkg-deb -x`, no root needed),
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

# ---- The package --------------------------------------------------------------------------------
run(${CPACK} -G DEB -C ${CONFIG} --config "${BUILD_DIR}/CPackConfig.cmake" -B "${WORK_DIR}/cpack")
file(GLOB debs "${WORK_DIR}/cpack/pacer_${VERSION}_*.deb")
list(LENGTH debs n)
if(NOT n EQUAL 1)
  file(GLOB all "${WORK_DIR}/cpack/*")
  message(FATAL_ERROR "package: expected one pacer_${VERSION}_<arch>.deb, found: ${all}")
endif()
get_filename_component(deb_name "${debs}" NAME)
message(STATUS "package: built ${deb_name}")

run(dpkg-deb --field "${debs}" Package Version Section Maintainer Depends Description)
set(fields "${out}")
expect("package name and version" "${fields}" "Package: libpacer-dev\nVersion: ${VERSION}\n")
expect("section" "${fields}" "Section: libdevel")
expect("maintainer" "${fields}" "Maintainer: [^\n]+")
# A static library and headers: the C and C++ standard libraries, nothing else.
expect("depends on libc and libstdc++ only" "${fields}"
       "Depends: libc6-dev \\| libc-dev, libstdc\\+\\+-dev\n")
expect("description" "${fields}" "Description: [^\n]+\n [^\n]+")

run(dpkg-deb --contents "${debs}")
set(contents "${out}")
foreach(file IN ITEMS include/pacer/pacer.hpp include/pacer/version.hpp lib/libpacer.a
                      lib/cmake/pacer/pacerConfig.cmake lib/cmake/pacer/pacerConfigVersion.cmake
                      lib/cmake/pacer/pacerTargets.cmake lib/pkgconfig/pacer.pc
                      share/doc/pacer/LICENSE share/doc/pacer/CHANGELOG.md)
  string(REPLACE "+" "\\+" pattern "./usr/${file}")
  expect("contains /usr/${file}" "${contents}" " ${pattern}(\n|$)")
endforeach()
# For games that do not embed pacer: the Vulkan layer and its two manifests, the GL interposer
# and pacer-run, the one program (a script).
if(HAVE_LAYER)
  foreach(file IN ITEMS ${INJECT_LIBDIR}/libVkLayer_pacer_frame_pacing.so
                        share/vulkan/explicit_layer.d/VkLayer_pacer_frame_pacing.json
                        share/vulkan/implicit_layer.d/VkLayer_pacer_frame_pacing.json)
    expect("contains /usr/${file}" "${contents}" " ./usr/${file}(\n|$)")
  endforeach()
endif()
if(HAVE_GL)
  foreach(file IN ITEMS ${INJECT_LIBDIR}/libpacer_gl.so ${INJECT_LIBDIR}/pacer/libpacer_gl_pacing.so bin/pacer-run)
    expect("contains /usr/${file}" "${contents}" " ./usr/${file}(\n|$)")
  endforeach()
endif()
if(HAVE_I386)  # the 32-bit builds beside (cmake/PacerI386.cmake)
  set(_i386 lib/i386-linux-gnu/libpacer_gl.so lib/i386-linux-gnu/pacer/libpacer_gl_pacing.so)
  if(HAVE_LAYER)
    list(APPEND _i386 lib/i386-linux-gnu/libVkLayer_pacer_frame_pacing.so)
  endif()
  foreach(file IN LISTS _i386)
    expect("contains /usr/${file}" "${contents}" " ./usr/${file}(\n|$)")
  endforeach()
endif()
string(REGEX MATCHALL " \\./usr/bin/[^\n]+" programs "${contents}")
list(REMOVE_ITEM programs " ./usr/bin/pacer-run")
if(programs)
  message(FATAL_ERROR "package: the package holds a program besides pacer-run: ${programs}")
endif()

# ---- Unpacked, as a user's machine sees it ------------------------------------------------------
set(root "${WORK_DIR}/root")
run(dpkg-deb -x "${debs}" "${root}")

# pacer-run from the unpacked tree paces glxgears and vkcube (tests/gl/gl_test.sh unpacked): the
# package's files alone, found relative to the script.
if(HAVE_GL AND GL_TEST)
  execute_process(COMMAND "${GL_TEST}" unpacked "${PACER_CLI}" "${BUILD_DIR}" "${WORK_DIR}/gl" "${root}"
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
# link pacer::pacer alone; the package holds no tool, so no pacer::pacer_cli either.
set(c_build "${WORK_DIR}/c_only")
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/consumer/c_only" -B "${c_build}" -G "${GENERATOR}"
    -DPACER_HOW=find_package -DCMAKE_BUILD_TYPE=${CONFIG} "-DCMAKE_PREFIX_PATH=${root}/usr"
    "-DPACER_README=${SOURCE_DIR}/README.md" -DPACER_EXPECT_CLI=OFF)
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
