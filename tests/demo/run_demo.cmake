# Runs pacer_demo once and checks exit status, output and (optionally) a screenshot.
# Variables: DEMO, ARGS ('|'-separated), CODE, STDOUT_RE, STDERR_RE, NO_DISPLAY, XVFB_RUN, XVFB_FPS, PNG,
# PNG_CHECK, FPS_FLOOR, JIT_WORK_MS, XVFB_NUM. See tests/demo/CMakeLists.txt.
string(REPLACE "|" ";" args "${ARGS}")
set(cmd "${DEMO}" ${args})
if(XVFB_RUN)
  # -noreset: otherwise Xvfb resets when the demo (its last client) exits and signals xvfb-run
  # (SIGUSR1, "ready again") while xvfb-run's cleanup runs; when that lands during its `rm` of the
  # Xauthority directory, its shell takes the rm as failed and xvfb-run exits 5 instead of with
  # the demo's status (1 run in 36-50 beside a busy loop; 0 in 150 with -noreset).
  set(server "-screen 0 1280x800x24 -noreset")
  if(XVFB_FPS)  # a vblank clock at this rate, reported by X11 Present
    string(APPEND server " -fakescreenfps ${XVFB_FPS}")
  endif()
  # A server number of the test's own (XVFB_NUM): `xvfb-run -a` picks the first free one, and two
  # tests started at once can pick the same one.
  set(cmd "${XVFB_RUN}" -n ${XVFB_NUM} -s "${server}" ${cmd})
endif()
if(NO_DISPLAY)
  set(cmd "${CMAKE_COMMAND}" -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY --unset=SDL_VIDEODRIVER ${cmd})
endif()
if(PNG)
  file(REMOVE "${PNG}")
endif()

execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 50)
message("command: ${cmd}\nexit: ${rc}\n--- stdout\n${out}--- stderr\n${err}---")

if(NOT "${rc}" STREQUAL "${CODE}")
  message(FATAL_ERROR "expected exit status ${CODE}, got '${rc}'")
endif()
if(STDOUT_RE AND NOT out MATCHES "${STDOUT_RE}")
  message(FATAL_ERROR "stdout does not match: ${STDOUT_RE}")
endif()
if(STDERR_RE AND NOT err MATCHES "${STDERR_RE}")
  message(FATAL_ERROR "stderr does not match: ${STDERR_RE}")
endif()
# The summary's number `field` in hundredths, into `var` (CMake's math is integer); `check` names
# the check that needs it when it is missing.
function(summary_hundredths field var check)
  if(NOT out MATCHES " ${field}=([0-9]+)(\\.([0-9]+))?")
    message(FATAL_ERROR "${check}: no ${field} in the summary")
  endif()
  string(SUBSTRING "${CMAKE_MATCH_3}00" 0 2 frac)
  math(EXPR v "${CMAKE_MATCH_1} * 100 + ${frac}")
  set(${var} ${v} PARENT_SCOPE)
endfunction()
# FPS_FLOOR: the summary's avg_fps at least 80 % of grid_fps, the rate the pacer's grid allows
# frames that cost what this run's did (each frame's own cost in whole periods, the mean of them;
# demo/session.hpp). A software rasteriser beside other work draws slower than the target; a
# pacer that slept too long draws slower than its frames allow. Integer arithmetic, hundredths.
if(FPS_FLOOR)
  summary_hundredths(avg_fps fps100 FPS_FLOOR)
  summary_hundredths(grid_fps can100 FPS_FLOOR)
  math(EXPR need100 "${can100} * 8 / 10")
  message("fps floor: avg_fps x 100 = ${fps100}; the grid allows ${can100} for these frames; at least ${need100}")
  if(fps100 LESS need100)
    message(FATAL_ERROR "avg_fps under 80 % of what the frames allow: ${fps100} < ${need100} (hundredths)")
  endif()
endif()
# JIT_WORK_MS (the longest work a frame is given, ms): just in time's median latency is judged
# against what this run's wake-ups allowed. Its lead is a quantile of the work plus the wake-up
# error, so on time it is under 0.8 periods (a frame started at the previous vblank waits a whole
# period: 16.6 ms at 60 Hz, against 3.0 ms just in time, quiet); on a machine whose wake-ups came
# late (two FIFO threads stopping every core for 1-12 ms: p99 lateness 14.5 ms, median latency
# 15.3 ms) it may be up to the work + the run's p99 lateness + a quarter period. Hundredths.
if(JIT_WORK_MS)
  foreach(field hz latency_p50_ms p99_lateness_ms)
    summary_hundredths(${field} ${field} JIT_WORK_MS)
  endforeach()
  math(EXPR period "10000000 / ${hz}")  # the period in hundredths of a ms
  math(EXPR on_time "${period} * 8 / 10")
  math(EXPR late "${JIT_WORK_MS} * 100 + ${p99_lateness_ms} + ${period} / 4")
  set(ceil ${on_time})
  if(late GREATER ceil)
    set(ceil ${late})
  endif()
  message("just in time: median latency x 100 = ${latency_p50_ms}; 0.8 periods ${on_time}, the work + "
          "p99 lateness + a quarter period ${late}; at most ${ceil}")
  if(latency_p50_ms GREATER ceil)
    message(FATAL_ERROR "just in time's median latency over what the run's wake-ups allow: ${latency_p50_ms} > ${ceil} (hundredths)")
  endif()
endif()
if(CODE EQUAL 2 AND out MATCHES "summary:")
  message(FATAL_ERROR "a refused command line must not run the loop")
endif()
if(PNG)
  if(NOT EXISTS "${PNG}")
    message(FATAL_ERROR "no screenshot at ${PNG}")
  endif()
  execute_process(COMMAND "${PNG_CHECK}" "${PNG}" 1280 800 RESULT_VARIABLE prc OUTPUT_VARIABLE pout
                  ERROR_VARIABLE perr)
  message("png_check: ${pout}${perr}")
  if(NOT prc EQUAL 0)
    message(FATAL_ERROR "screenshot check failed")
  endif()
endif()
