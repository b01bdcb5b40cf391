# Where the libraries a game loads go when installed (the Vulkan layer, the GL interposer), and how
# the layer's manifests and pacer-run name them.
#
# On a Debian-style multiarch system (CMAKE_LIBRARY_ARCHITECTURE x86_64-linux-gnu or
# i386-linux-gnu, a relative LIBDIR): into lib/<triplet>, whatever LIBDIR says, and named through
# the dynamic linker's $LIB token ("lib/x86_64-linux-gnu" in a 64-bit process,
# "lib/i386-linux-gnu" in a 32-bit one), so that one manifest and one LD_PRELOAD serve 64- and
# 32-bit games (the i386 builds, cmake/PacerI386.cmake, install into lib/i386-linux-gnu).
# Elsewhere: LIBDIR, named by its path.
#
#   PACER_INJECT_LIBDIR      the install folder, relative to the prefix
#   PACER_INJECT_MULTIARCH   ON where $LIB names it
#   pacer_inject_path(out from file)
#       the path of PACER_INJECT_LIBDIR/file as seen from the install folder `from` (relative to
#       the prefix): relative, with $LIB for the folder where PACER_INJECT_MULTIARCH; absolute
#       where LIBDIR or `from` is
include(GNUInstallDirs)
set(PACER_INJECT_MULTIARCH OFF)
set(PACER_INJECT_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
if(CMAKE_LIBRARY_ARCHITECTURE MATCHES "^(x86_64|i386)-linux-gnu$" AND NOT IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(PACER_INJECT_MULTIARCH ON)
  set(PACER_INJECT_LIBDIR "lib/${CMAKE_LIBRARY_ARCHITECTURE}")
endif()

function(pacer_inject_path out from file)
  if(IS_ABSOLUTE "${PACER_INJECT_LIBDIR}")
    set(${out} "${PACER_INJECT_LIBDIR}/${file}" PARENT_SCOPE)
    return()
  elseif(IS_ABSOLUTE "${from}")
    set(${out} "${CMAKE_INSTALL_PREFIX}/${PACER_INJECT_LIBDIR}/${file}" PARENT_SCOPE)
    return()
  endif()
  file(RELATIVE_PATH _rel "/p/${from}" "/p/${PACER_INJECT_LIBDIR}/${file}")
  if(PACER_INJECT_MULTIARCH)
    string(REPLACE "${PACER_INJECT_LIBDIR}/" "$LIB/" _rel "${_rel}")
  endif()
  set(${out} "${_rel}" PARENT_SCOPE)
endfunction()
