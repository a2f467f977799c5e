// The comparison of two profiles as tables (-T compare, -T compare.csv):
// per function, its cost before and after, the change and the ratio, in the
// event's unit, inclusive and self, and how it was paired (analysis/merge.h
// pair_functions). Largest changes of inclusive cost first.
#pragma once

#include <string>

#include "graphgen/analysis/graph.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/profile.h"

namespace graphgen::compare {

/// One profile of the comparison: its event and every function's inclusive
/// cost (the unpruned graph's totals).
struct Side {
  const Profile* profile = nullptr;
  std::size_t event = 0;
  const CallGraph* totals = nullptr;
  std::string name;  // for the header
};

struct Options {
  std::size_t top = 0;  // rows of the text table (0: 25); the CSV has them all
};

/// A table for people: totals, how many functions paired by which rule,
/// then the functions of largest inclusive change.
std::string write_text(const Side& before, const Side& after, const Pairing& pairing, const Options& o);
/// Every function, paired or not, full precision, one header row.
std::string write_csv(const Side& before, const Side& after, const Pairing& pairing);
/// One self-contained page (-T html --compare): the totals, how functions
/// paired, and every function's row, sortable by any column (a click on
/// its header) and filtered by a text box; changes coloured red (slower)
/// and blue (faster). Opened with #selftest, it sorts and filters itself and
/// writes what it saw to <body data-selftest> (the browser test reads it).
std::string write_html(const Side& before, const Side& after, const Pairing& pairing, const std::string& creator);

}  // namespace graphgen::compare
