# Runs pacer_demo once and checks exit status, output and (optionally) a screenshot.
# Variables: DEMO, ARGS ('|'-separated), CODE, STDOUT_RE, STDERR_RE, NO_DISPLAY, XVFB_RUN, XVFB_FPS, PNG,
# PNG_CHECK, FPS_FLOOR, XVFB_NUM. See tests/demo/CMakeLists.txt.
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
# FPS_FLOOR: the summary's avg_fps at least 80 % of grid_fps, the rate the pacer's grid allows
# frames that cost what this run's did (each frame's own cost in whole periods, the mean of them;
# demo/session.hpp). A software rasteriser beside other work draws slower than the target; a
# pacer that slept too long draws slower than its frames allow. Integer arithmetic, hundredths.
if(FPS_FLOOR)
  if(NOT out MATCHES "avg_fps=([0-9]+)\\.([0-9][0-9])" )
    message(FATAL_ERROR "FPS_FLOOR: no avg_fps in the summary")
  endif()
  math(EXPR fps100 "${CMAKE_MATCH_1} * 100 + ${CMAKE_MATCH_2}")
  if(NOT out MATCHES "grid_fps=([0-9]+)\\.([0-9][0-9])")
    message(FATAL_ERROR "FPS_FLOOR: no grid_fps in the summary")
  endif()
  math(EXPR can100 "${CMAKE_MATCH_1} * 100 + ${CMAKE_MATCH_2}")
  math(EXPR need100 "${can100} * 8 / 10")
  message("fps floor: avg_fps x 100 = ${fps100}; the grid allows ${can100} for these frames; at least ${need100}")
  if(fps100 LESS need100)
    message(FATAL_ERROR "avg_fps under 80 % of what the frames allow: ${fps100} < ${need100} (hundredths)")
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
