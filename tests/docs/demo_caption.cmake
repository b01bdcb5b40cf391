# The captions of docs/demo.png say what the picture shows: the command that took it is written
# in docs/demo.md ("pacer_demo ARGS --screenshot docs/demo.png"), and every caption of the picture
# (docs/demo.md's "`docs/demo.png`: ..." and demo/README.md's alt text) names its rate (--hz, else
# the demo's default, 60 Hz), no other rate, and each of its options; "default settings" only for
# a picture taken with none.
#   cmake -DSOURCE_DIR=... -P demo_caption.cmake
file(READ ${SOURCE_DIR}/docs/demo.md readme)
file(READ ${SOURCE_DIR}/demo/README.md demo_readme)

if(NOT readme MATCHES "pacer_demo ([^`]*)--screenshot docs/demo\\.png")
  message(FATAL_ERROR "docs/demo.md does not say how docs/demo.png was taken (pacer_demo ... --screenshot docs/demo.png)")
endif()
set(args " ${CMAKE_MATCH_1}")
set(hz 60)  # the demo's default --hz
if(args MATCHES " --hz[ =]([0-9.]+)")
  set(hz ${CMAKE_MATCH_1})
endif()
# The options that change what the picture shows: not the rate (checked as "N Hz") nor when or
# where the screenshot is taken.
string(REGEX REPLACE " --(hz|frames|seconds|screenshot-frame)[ =][^ ]+" "" shown_args "${args}")
string(REGEX MATCHALL "--[a-z-]+( [^- ][^ ]*)?" options "${shown_args}")

# One caption: its rate, no other, each option; no "default settings" when there are options.
function(check_caption where caption)
  string(REGEX REPLACE "[ \n]+" " " caption "${caption}")
  string(REPLACE "`" "" caption "${caption}")
  string(REPLACE ";" "," caption "${caption}")  # not a list separator below
  set(e "")
  if(NOT caption MATCHES "(^|[^0-9.])${hz} Hz")
    string(APPEND e "${where}: the caption does not say ${hz} Hz: \"${caption}\"\n")
  endif()
  string(REGEX MATCHALL "[0-9.]+ Hz" rates "${caption}")
  foreach(rate IN LISTS rates)
    if(NOT rate STREQUAL "${hz} Hz")
      string(APPEND e "${where}: the caption says ${rate}, the picture was taken at ${hz} Hz\n")
    endif()
  endforeach()
  foreach(option IN LISTS options)
    string(FIND "${caption}" "${option}" at)
    if(at LESS 0)
      string(APPEND e "${where}: the caption does not name ${option}: \"${caption}\"\n")
    endif()
  endforeach()
  if(options AND caption MATCHES "default settings")
    string(APPEND e "${where}: the caption says \"default settings\", the picture was taken with ${options}\n")
  endif()
  set(errors "${errors}${e}" PARENT_SCOPE)
endfunction()

set(errors "")
if(readme MATCHES "`docs/demo\\.png`: ([^)]*)\\)")
  check_caption("docs/demo.md" "${CMAKE_MATCH_1}")
else()
  string(APPEND errors "docs/demo.md has no caption \"`docs/demo.png`: ...)\"\n")
endif()
if(demo_readme MATCHES "!\\[([^[]*)\\]\\(\\.\\./docs/demo\\.png\\)")
  check_caption("demo/README.md" "${CMAKE_MATCH_1}")
else()
  string(APPEND errors "demo/README.md shows no ../docs/demo.png with a caption\n")
endif()
if(errors)
  message(FATAL_ERROR "docs/demo.png (taken with:${args}):\n${errors}")
endif()
message(STATUS "ok: docs/demo.png's captions say ${hz} Hz and ${options}")
