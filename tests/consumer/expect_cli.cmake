# Included by the consumer projects (c_only, tools_only): pacer::pacer_cli exists exactly when the
# tool was installed (PACER_EXPECT_CLI), and then runs `pacer analyze` of CAPTURE as the target
# TARGET_NAME.
function(pacer_expect_cli target_name capture)
  if(PACER_EXPECT_CLI AND NOT TARGET pacer::pacer_cli)
    message(FATAL_ERROR "the pacer tool was installed, but find_package(pacer) defines no pacer::pacer_cli")
  elseif(NOT PACER_EXPECT_CLI AND TARGET pacer::pacer_cli)
    message(FATAL_ERROR "pacer::pacer_cli is defined, but the pacer tool was not installed")
  endif()
  if(PACER_EXPECT_CLI)
    add_custom_target(${target_name} COMMAND pacer::pacer_cli analyze "${capture}" VERBATIM)
  endif()
endfunction()
