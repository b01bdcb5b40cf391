# pacer_unity([BATCH_SIZE n] target...): compile the targets' sources in batches of n (default 8;
# CMake's unity build) when PACER_UNITY_BUILD is ON: the default preset (./dev test) turns it on
# for the demo, the tool, the tools library (pacer_tools) and the test programs pacer_tests and
# pacer_tools_tests, whose files each parse the same heavy headers (SDL2, Dear ImGui, spdlog,
# GoogleTest, the pacer headers) and instantiate the same templates again. A target gets at least
# two batches, so that both of ./dev test's build jobs have work. Sources that include Xlib or
# Wayland headers (which #define Status and more) compile alone: SKIP_UNITY_BUILD_INCLUSION beside
# the call. Helpers of a file's anonymous namespace must have names of their own in the target
# (one batch is one anonymous namespace); shared ones live in a header. Never the library itself:
# an engine builds pacer's sources one by one, and so do the other presets, so a file that only
# compiles beside its batch still fails there. docs/build-time.md has the measurement.
option(PACER_UNITY_BUILD "Build pacer's test programs, demo and tool as unity batches (./dev test)" OFF)

function(pacer_unity)
  cmake_parse_arguments(U "" "BATCH_SIZE" "" ${ARGN})
  if(NOT U_BATCH_SIZE)
    set(U_BATCH_SIZE 8)
  endif()
  if(PACER_UNITY_BUILD)
    set_target_properties(${U_UNPARSED_ARGUMENTS} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${U_BATCH_SIZE})
  endif()
endfunction()
