// What a picture shows of a function, computed in one place from its
// identity and the profile's label style (never stored by readers).
#pragma once

#include <string>
#include <string_view>

#include "graphgen/profile.h"

namespace graphgen {

/// The name line gprof2dot shows and -z/-l match: `memtrail:382:tree` for
/// Python functions, else the function's name.
std::string function_label(const Profile& p, FuncId f);

/// What the label puts before the function's name (`module:line:` for
/// Python functions, else nothing): function_label = prefix + name.
std::string label_prefix(const Profile& p, FuncId f);

/// The line above the name, if any (the object's basename for perf and
/// callgrind, py-spy's file for collapsed stacks, `file.js:LINE` for
/// JavaScript). False when none is shown.
bool module_line(const Profile& p, FuncId f, std::string& out);

/// gprof2dot's Python module: basename of the filename without extension.
std::string python_module(std::string_view filename);

}  // namespace graphgen
