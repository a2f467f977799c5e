# graphgen_soname(<var> <library file> <what>): the soname of a shared
# library, read from its dynamic section with `objdump -p`. Libraries that
# graphgen loads the first time a run needs them (lib/include/graphgen/
# shared_lib.h) are opened by this name: the one of the library the build
# compiled against, whatever its version. The file the soname names is
# kept in <var>_FILE (the package names who owns it: cmake/Packaging.cmake),
# and the variable joins GRAPHGEN_LOADED_SONAMES.
function(graphgen_soname var file what)
  find_program(GRAPHGEN_OBJDUMP NAMES objdump REQUIRED)
  execute_process(COMMAND ${GRAPHGEN_OBJDUMP} -p ${file} OUTPUT_VARIABLE dump)
  string(REGEX MATCH "SONAME +([^ \n]+)" line "${dump}")
  if(NOT line)
    message(FATAL_ERROR "cannot read the soname of ${file} with objdump -p")
  endif()
  set(soname ${CMAKE_MATCH_1})
  set(${var} ${soname} CACHE INTERNAL "${what}'s soname, loaded on first use")
  get_filename_component(dir ${file} DIRECTORY)
  get_filename_component(real ${dir}/${soname} REALPATH)
  set(${var}_FILE ${real} CACHE INTERNAL "the file ${what}'s soname names")
  set(loaded ${GRAPHGEN_LOADED_SONAMES})
  if(NOT var IN_LIST loaded)
    list(APPEND loaded ${var})
    set(GRAPHGEN_LOADED_SONAMES ${loaded} CACHE INTERNAL "the sonames graphgen loads on first use")
  endif()
endfunction()
