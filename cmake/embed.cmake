# Turns a text file (JavaScript, CSS) into a C++ header holding it as one
# std::string_view, so the outputs that carry it are self-contained files.
#   cmake -DIN=file.js -DOUT=file_js.h -DNAME=kFileJs -P embed.cmake
file(READ "${IN}" content)
string(FIND "${content}" ")embed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw string's delimiter )embed\"")
endif()
string(FIND "${content}" "]]>" cdata)
if(NOT cdata EQUAL -1)
  message(FATAL_ERROR "${IN} contains ]]>, which would end the CDATA section it is embedded in")
endif()
get_filename_component(name "${IN}" NAME)
file(WRITE "${OUT}.tmp"
  "// Generated from ${name} by cmake/embed.cmake at build time: edit ${name}.\n"
  "#pragma once\n#include <string_view>\n"
  "inline constexpr std::string_view ${NAME} = R\"embed(${content})embed\";\n")
file(RENAME "${OUT}.tmp" "${OUT}")
