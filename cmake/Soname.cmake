# graphgen_soname(<var> <library file> <what>): the soname of a shared
# library, read from its dynamic section with `objdump -p`. Libraries that
# graphgen loads the first time a run needs them (lib/include/graphgen/
# shared_lib.h) are opened by this name: the one of the library the build
# compiled against, whatever its version.
function(graphgen_soname var file what)
  find_program(GRAPHGEN_OBJDUMP NAMES objdump REQUIRED)
  execute_process(COMMAND ${GRAPHGEN_OBJDUMP} -p ${file} OUTPUT_VARIABLE dump)
  string(REGEX MATCH "SONAME +([^ \n]+)" line "${dump}")
  if(NOT line)
    message(FATAL_ERROR "cannot read the soname of ${file} with objdump -p")
  endif()
  set(${var} ${CMAKE_MATCH_1} CACHE INTERNAL "${what}'s soname, loaded on first use")
endfunction()
