# The library's private folders (pacer/src) and which of them each may include: a part, a
# virtual-time double or a platform never reaches FramePacer (core/) or the C API (c_api/), so each
# of them still builds and tests on its own. Internal includes name their folder from the one
# private include root ("core/pacer_impl.hpp"); a relative include ("../x.hpp") is refused, so the
# folder an include reaches is always the one it names.
# Run as: cmake -DSRC_DIR=<pacer/src> -P src_layering.cmake (tests/CMakeLists.txt: headers.src_layering).
# docs/architecture.md draws the same folders.
#
#   base      the log and text helpers                   includes base
#   platform  the OS seam, one folder per OS             includes base, platform
#   parts     one job each, pure logic on given times    includes base, parts
#   sim       the virtual-time doubles                   includes base, sim
#   capture   statistics and the capture file            includes base, capture
#   core      FramePacer: its impl, the present side     includes base, platform, parts, capture, core
#   c_api     pacer.h over the C++ API                   includes any of them
cmake_minimum_required(VERSION 3.22)
set(_allowed
  "base=base"
  "platform=base,platform"
  "parts=base,parts"
  "sim=base,sim"
  "capture=base,capture"
  "core=base,platform,parts,capture,core"
  "c_api=base,platform,parts,sim,capture,core,c_api")

function(allowed_of folder out)
  foreach(entry IN LISTS _allowed)
    if(entry MATCHES "^${folder}=(.*)$")
      string(REPLACE "," ";" list "${CMAKE_MATCH_1}")
      set(${out} "${list}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "-" PARENT_SCOPE)
endfunction()

get_filename_component(SRC_DIR "${SRC_DIR}" ABSOLUTE)
if(NOT IS_DIRECTORY "${SRC_DIR}")
  message(FATAL_ERROR "SRC_DIR=${SRC_DIR} is not a directory")
endif()
file(GLOB_RECURSE sources RELATIVE "${SRC_DIR}" "${SRC_DIR}/*.cpp" "${SRC_DIR}/*.hpp" "${SRC_DIR}/*.h")
set(_errors "")
set(_checked 0)
foreach(source IN LISTS sources)
  if(NOT source MATCHES "^([a-z_]+)/")
    string(APPEND _errors "  ${source}: not in a role folder (docs/architecture.md names them)\n")
    continue()
  endif()
  set(folder ${CMAKE_MATCH_1})
  allowed_of(${folder} allowed)
  if(allowed STREQUAL "-")
    string(APPEND _errors "  ${source}: folder ${folder}/ has no rule (add it to tests/headers/src_layering.cmake)\n")
    continue()
  endif()
  file(STRINGS "${SRC_DIR}/${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
    if(inc MATCHES "^pacer/")
      continue()  # a public header: tests/headers/layering.cmake orders those
    elseif(inc MATCHES "(^|/)\\.\\./" OR NOT inc MATCHES "^([a-z_]+)/")
      string(APPEND _errors "  ${source} includes \"${inc}\": name its folder from pacer/src\n")
      continue()
    endif()
    set(target ${CMAKE_MATCH_1})
    if(NOT EXISTS "${SRC_DIR}/${inc}")
      # A platform SDK header spelled with quotes is not ours; only our folders are ruled.
      allowed_of(${target} known)
      if(NOT known STREQUAL "-")
        string(APPEND _errors "  ${source} includes \"${inc}\", which does not exist\n")
      endif()
      continue()
    endif()
    if(NOT target IN_LIST allowed)
      string(REPLACE ";" ", " allowed_text "${allowed}")
      string(APPEND _errors "  ${source} (${folder}/) includes ${inc} (${target}/): ${folder}/ may include ${allowed_text}\n")
    endif()
  endforeach()
  math(EXPR _checked "${_checked} + 1")
endforeach()
if(_checked EQUAL 0 AND _errors STREQUAL "")
  message(FATAL_ERROR "no sources found under ${SRC_DIR}")
endif()
if(NOT _errors STREQUAL "")
  message(FATAL_ERROR "private include layering broken:\n${_errors}")
endif()
message(STATUS "${_checked} library sources, each includes only the folders its role allows")
