// In-process layout and rendering of DOT text with Graphviz (cgraph + gvc).
// The only code in graphgen that links Graphviz; the `dot` program is not
// needed.
#pragma once

#include <string>
#include <string_view>

#include "graphgen/error.h"

namespace graphgen::render {

/// True when this build can render (Graphviz was found at build time).
bool available();

/// Lays out `dot_source` with `engine` (dot, or nop2 for a graph whose
/// positions are given, such as a Drawing's) and renders it as `format`
/// ("png", "svg", "pdf", ...). `title` names the graph (SVG's <title>).
/// The bytes are returned; nothing is written.
Expected<std::string> render(std::string_view dot_source, std::string_view format, std::string_view title = {},
                             const char* engine = "dot");

}  // namespace graphgen::render
