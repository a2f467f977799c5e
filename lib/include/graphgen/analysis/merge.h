// Unifying functions that the reader kept apart, for views that want a
// coarser identity than the file format's.
#pragma once

#include <string_view>
#include <vector>

#include "graphgen/error.h"
#include "graphgen/flat_index.h"
#include "graphgen/io.h"
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

/// Folds profiles into `into`, keeping its indexes between additions so that
/// folding many files costs one pass over each (`into` must change only
/// through this merger while it lives). add() does what add_profile() says.
class ProfileMerger {
 public:
  explicit ProfileMerger(Profile& into);
  Expected<bool> add(const Profile& other, std::string_view other_path);

 private:
  static std::uint64_t function_hash(std::string_view label, std::string_view name, std::string_view object,
                                     std::string_view file);
  Profile& into_;
  FlatIndex functions_, calls_, lines_, children_;
};

/// Adds `other` into `into` (e.g. another file of the same format): events
/// matched by name, functions by their label, name, object and file, and
/// self costs, counts, calls, per-line costs, stack totals and callsite
/// trees summed. What is new to `into` is appended in `other`'s order, so
/// adding files in order equals reading them in one pass. Fails when the
/// two have different events.
Expected<bool> add_profile(Profile& into, const Profile& other, std::string_view other_path);

/// Reads `inputs` with `read_one` on two threads and adds the profiles in
/// input order (deterministic whatever the timing); warnings are kept in
/// input order too. The first failing input (in order) decides the error.
Expected<Profile> read_in_parallel(const std::vector<InputFile>& inputs,
                                   Expected<Profile> (*read_one)(const InputFile&, const void*, Diagnostics&),
                                   const void* context, Diagnostics& diag);

}  // namespace graphgen
