# ctest driver of consumer.tools_only: tests/consumer/tools_only (a project without languages that
# takes the `pacer` tool from find_package(pacer)) configured against an installed pacer, and,
# when the tool was installed, its analyze_sample target built (it runs the tool). PREFIX: an
# installed pacer (tests/consumer/run.cmake passes its own); without it, the build tree BUILD_DIR
# is installed into WORK_DIR/prefix first (CONFIG, the configuration to install).
file(REMOVE_RECURSE "${WORK_DIR}/build")
if(NOT PREFIX)
  set(PREFIX "${WORK_DIR}/prefix")
  file(REMOVE_RECURSE "${PREFIX}")
  if(NOT CONFIG)
    set(CONFIG RelWithDebInfo)
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}" --config ${CONFIG}
                  OUTPUT_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install ${BUILD_DIR} failed (${rc})")
  endif()
endif()
file(GLOB tool "${PREFIX}/bin/pacer" "${PREFIX}/bin/pacer.exe")
if(tool)
  set(expect_cli ON)
else()
  set(expect_cli OFF)
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/consumer/tools_only" -B "${WORK_DIR}/build"
                        -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${PREFIX}" -DPACER_EXPECT_CLI=${expect_cli}
                        "-DPACER_SAMPLE=${SOURCE_DIR}/tests/samples/presentmon1.csv"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "find_package(pacer) in a project without languages (project(x NONE)) failed (${rc})")
endif()
if(expect_cli)
  execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/build" --target analyze_sample
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pacer::pacer_cli analyze in a project without languages failed (${rc})")
  endif()
  message(STATUS "consumer.tools_only: find_package(pacer) in project(x NONE): pacer::pacer_cli analyzed a capture")
else()
  message(STATUS "consumer.tools_only: find_package(pacer) in project(x NONE) works; no tool was installed")
endif()
