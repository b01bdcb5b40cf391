# The public headers' layers: a header includes only headers of lower layers, so a part never
# reaches the pacer or another part it does not build on, and a record never reaches a part.
# Run as: cmake -DINCLUDE_DIRS="<dir>;<dir>" -P layering.cmake (tests/CMakeLists.txt: headers.layering).
# docs/architecture.md draws the same layers.
#
#   0  foundation   the clock, names, status, log, version, the thread priority's record
#   1  vocabulary   the OS seam (in the clock's time), the named choices, the present record,
#                   the estimator
#   2  parts        one job each, pure logic on the times they are given (and the simulators)
#   3  composite    parts built on other parts
#   4  records      what a frame looked like, every setting
#   5  statistics   of those records, and the capture file's columns
#   6  users        the capture file (it keeps statistics too) and FramePacer
#   7  adapters     glue to SDL2 and spdlog, compiled in the host
#   8  everything   pacer.hpp
set(_layers
  "version=0" "names=0" "status=0" "clock=0" "log=0" "priority=0"
  "time_source=1" "modes=1" "present=1" "estimator=1" "clock_offset=1"
  "waiter=2" "cadence=2" "display=2" "vsync=2" "fixed_step=2" "sim=2"
  "grid=2" "present_classifier=2" "lead=2" "latency=2" "guard=2"
  "sim_display=3" "vblanks=3" "rate=3"
  "frame_timing=4" "config=4"
  "stats=5" "capture_columns=5"
  "capture=6" "frame_pacer=6"
  "sdl2=7" "spdlog=7" "x11_present=7" "wayland_presentation=7" "vulkan=7"
  "pacer=8")

function(layer_of name out)
  foreach(entry IN LISTS _layers)
    if(entry MATCHES "^${name}=([0-9]+)$")
      set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

set(_errors "")
set(_checked 0)
foreach(dir IN LISTS INCLUDE_DIRS)
  file(GLOB headers RELATIVE "${dir}/pacer" "${dir}/pacer/*.hpp")
  foreach(header IN LISTS headers)
    string(REGEX REPLACE "\\.hpp$" "" name "${header}")
    layer_of(${name} own)
    if(own STREQUAL "")
      string(APPEND _errors "  pacer/${header}: no layer (add it to tests/headers/layering.cmake)\n")
      continue()
    endif()
    file(STRINGS "${dir}/pacer/${header}" includes REGEX "^#include \"pacer/[a-z_0-9]+\\.hp?p?\"")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^#include \"pacer/([a-z_0-9]+)\\.hp?p?\".*" "\\1" dep "${line}")
      layer_of(${dep} theirs)
      if(theirs STREQUAL "")
        string(APPEND _errors "  pacer/${header} includes pacer/${dep}, which has no layer\n")
      elseif(NOT theirs LESS own)
        string(APPEND _errors "  pacer/${header} (layer ${own}) includes pacer/${dep} (layer ${theirs}): only lower layers\n")
      endif()
    endforeach()
    math(EXPR _checked "${_checked} + 1")
  endforeach()
endforeach()
if(_checked EQUAL 0)
  message(FATAL_ERROR "no headers found under ${INCLUDE_DIRS}")
endif()
if(NOT _errors STREQUAL "")
  message(FATAL_ERROR "header layering broken:\n${_errors}")
endif()
message(STATUS "${_checked} public headers, each includes only lower layers")
