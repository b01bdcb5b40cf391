# The layer library exports the loader's three entry points and nothing else (nm -D
# --defined-only): pacer's symbols and the C++ code stay local, so a game that links its own pacer,
# or MangoHud loaded beside the layer, never binds to the layer's copies.
# Run as: cmake -DNM=<nm> -DLIBRARY=<the .so> -P layer_symbols.cmake
execute_process(COMMAND ${NM} -D --defined-only ${LIBRARY} OUTPUT_VARIABLE out RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "nm -D --defined-only ${LIBRARY} failed (${code})")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(found "")
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] +([^ ]+)$")
    list(APPEND found "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(SORT found)
set(expected vkGetDeviceProcAddr vkGetInstanceProcAddr vkNegotiateLoaderLayerInterfaceVersion)
if(NOT found STREQUAL expected)
  string(REPLACE ";" "\n  " shown "${found}")
  message(FATAL_ERROR "the layer exports other symbols than the loader's three:\n  ${shown}")
endif()
message(STATUS "exports: ${found}")
