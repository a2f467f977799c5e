// Shell-style wildcard matching with Python fnmatch semantics on POSIX:
// `*` any run (including '/'), `?` one character, `[seq]`, `[!seq]`,
// case-sensitive. Characters are UTF-8 code points.
#pragma once

#include <string_view>

namespace graphgen {

/// True when all of `text` matches `pattern`. Iterative, no recursion.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace graphgen
