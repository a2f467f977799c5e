// Text inside SVG, HTML and JSON outputs. Names come from untrusted
// profiles: bytes that are not UTF-8 become U+FFFD and control characters
// are escaped or replaced, so a hostile name cannot break the document
// (an SVG with one bad byte does not open at all) or close a <script>.
#pragma once

#include <string>
#include <string_view>

#include "graphgen/utf8.h"

namespace graphgen::formats {

using graphgen::valid_utf8;  // graphgen/utf8.h

/// For XML/HTML text and attribute values: & < > " ' escaped, control
/// characters (other than tab and newline), DEL and the C1 controls
/// replaced by U+FFFD.
std::string xml_text(std::string_view s);

/// A JSON string literal, quotes included. `in_html` also escapes '<', '>',
/// '&', DEL and the C1 controls so the JSON can sit inside an HTML <script>
/// element.
std::string json_text(std::string_view s, bool in_html = false);
/// json_text(s, in_html), appended to `out` (writers of many names).
void append_json_text(std::string& out, std::string_view s, bool in_html = false);

/// A JSON number: the shortest form that reads back the same; null for
/// infinities and NaN.
std::string json_number(double v);

/// A CSV field: valid UTF-8 without NUL, a would-be spreadsheet formula
/// (= + - @, tab or CR first) prefixed with ', quoted where needed.
std::string csv_field(std::string_view s);

}  // namespace graphgen::formats
