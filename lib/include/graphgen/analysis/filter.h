// pprof's sample filters, for every input format and every output:
//
//   --focus RE   keep only the samples whose stack holds a matching function
//   --ignore RE  drop the samples whose stack holds a matching function
//   --hide RE    drop matching frames; their cost goes to their caller
//   --show RE    keep only matching frames (hide every other one)
//
// A regular expression is POSIX extended (as `grep -E`), searched (not
// anchored) in a function's name, its label as graphs draw it, its file
// and its object (binary, DSO). Each option is repeatable: any of the
// expressions matching is a match.
//
// Stack formats (perf, collapsed stacks, and the others that keep sample
// stacks) are filtered exactly, sample by sample, as pprof does; a sample
// left with no frame is dropped. Call-graph formats (pstats, callgrind,
// gprof...) have no stacks: --hide and --show fold a function into its
// callers in proportion to the cost each call carries (the call-ratio
// assumption gprof2dot's totals make), --focus keeps the functions on a
// call path through a match (its callers and callees, transitively) and
// --ignore drops the matches and what only they call; costs of the
// functions kept are the profile's own.
#pragma once

#include <string>
#include <vector>

#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen {

struct Filters {
  std::vector<std::string> focus, ignore, hide, show;
  bool empty() const { return focus.empty() && ignore.empty() && hide.empty() && show.empty(); }
};

/// Checks every expression (a usage error names the option and what is wrong).
Expected<bool> check_filters(const Filters& filters);

/// Applies `filters` to `p` in place; warnings for expressions that match
/// nothing and for the cost that no frame is left to carry.
Expected<bool> apply_filters(Profile& p, const Filters& filters, Diagnostics& diag);

/// Drops the functions whose `keep` is false, with every call, position,
/// jump and listing that refers to them; the sample tree goes too if it
/// holds one. Functions keep their order.
void remove_functions(Profile& p, const std::vector<bool>& keep);

}  // namespace graphgen
