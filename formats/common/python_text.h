// Python's text as marshal and pickle files hold it, shared by the pstats
// and line_profiler decoders: UTF-8 with lone surrogates (what CPython's
// surrogatepass writes), Latin-1 (marshal's 'a'/'z' strings, and Python 2
// str in a file-system encoding that is not UTF-8), and the names of
// Python types in messages.
#pragma once

#include <string>
#include <string_view>

namespace graphgen::formats {

/// True when `s` is UTF-8 as CPython's surrogatepass decoder accepts it.
bool valid_utf8_surrogatepass(std::string_view s);

/// Appends Latin-1 bytes to `out` as UTF-8.
void append_latin1_as_utf8(std::string_view latin1, std::string& out);

/// "a tuple", "an int": a type's name with its article, for messages.
std::string with_article(std::string_view name);

}  // namespace graphgen::formats
