# pacer_unity(target...): compile the target's sources in batches (CMake's unity build) when
# PACER_UNITY_BUILD is ON: the default preset (./dev test) turns it on for the demo and the tool,
# whose files each parse the same heavy headers (SDL2, Dear ImGui, spdlog, the pacer headers)
# again. Never the library itself: an engine builds pacer's sources one by
# one, and so do the other presets, so a file that only compiles beside its batch still fails
# there. docs/build-time.md has the measurement.
option(PACER_UNITY_BUILD "Build pacer's test programs, demo and tool as unity batches (./dev test)" OFF)

function(pacer_unity)
  if(PACER_UNITY_BUILD)
    set_target_properties(${ARGN} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()
