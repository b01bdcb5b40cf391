# pacer_warnings(target): our warning flags, PRIVATE so they never leak into an engine's build.
#
# PACER_WARNINGS_AS_ERRORS turns them into errors. CI sets it (./dev test under CI=true,
# .ci/windows.sh); it stays OFF by default because a newer compiler than CI's can bring new
# warnings, and a user's build must not break over them.
option(PACER_WARNINGS_AS_ERRORS "Treat warnings in pacer's own targets as errors (CI)" OFF)

function(pacer_warnings target)
  if(MSVC)
    target_compile_options(${target} PRIVATE /W4 /permissive-)
    if(PACER_WARNINGS_AS_ERRORS)
      target_compile_options(${target} PRIVATE /WX)
    endif()
  else()
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                             -Wno-sign-conversion)
    if(PACER_WARNINGS_AS_ERRORS)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()
