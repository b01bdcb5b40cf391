# Runs COMMAND (a list) in WORK_DIR and checks its exit code (EXPECT_CODE) and that its output
# (stdout + stderr) matches EXPECT_REGEX. Used by the cli.* tests.
execute_process(COMMAND ${COMMAND}
                WORKING_DIRECTORY ${WORK_DIR}
                RESULT_VARIABLE code
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err
                TIMEOUT 120)
set(all "${out}${err}")
if(NOT "${code}" STREQUAL "${EXPECT_CODE}")
  message(FATAL_ERROR "exit code ${code}, expected ${EXPECT_CODE}\n--- output:\n${all}")
endif()
if(NOT all MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match \"${EXPECT_REGEX}\"\n--- output:\n${all}")
endif()
message(STATUS "ok: exit ${code}, output matches \"${EXPECT_REGEX}\"")
