// Unifying functions that the reader kept apart, for views that want a
// coarser identity than the file format's.
#pragma once

#include "graphgen/profile.h"

namespace graphgen {

enum class FunctionKey {
  kNameAndObject,  // one node per (name, binary): callgrind's fl= files set aside
  kName,           // gprof2dot's identity for callgrind: the name alone
};

/// `p` with functions of the same key made one function (the first one's
/// attributes, in first-appearance order): self costs, call counts, calls,
/// per-line costs and stack totals summed. Takes `p` by value so callers can
/// move it in; strings and per-line rows are moved, not copied.
Profile merge_functions(Profile p, FunctionKey key);

}  // namespace graphgen
