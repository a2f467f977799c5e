// `perf script` text output (docs/formats.md §5.1-5.4).
//
// Grammar:
//   sample  := header '\n' frame* ('\n' | next header)
//   header  := comm [pid | pid/tid] ['[' cpu ']'] time ':' [period] event ':' [rest]
//              (parsed from the right: comm may hold spaces or be one character;
//               without -g, `rest` is one frame: ip sym (dso))
//   frame   := '\t' hex-address ' ' symbol['+0x'offset] ' (' dso ')'
//   srcline := two spaces, then text (perf script -F +srcline), ignored
//   comment := '#' ...
// Frames are innermost first. Function identity is (symbol, dso), as in
// gprof2dot; `[unknown]` symbols are named by their address.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::perf {

struct Options {
  std::string event;             // keep only samples of this event; empty: all
  bool weight_by_period = false;  // else every sample counts 1
  /// Files larger than this are split at a sample boundary and read on two
  /// cores; the result is the same as reading them whole.
  std::size_t split_above = std::size_t{32} << 20;
};

/// True when the head looks like perf script output.
bool sniff(std::string_view head);

/// Reads and sums perf script files.
Expected<Profile> read(const std::vector<InputFile>& inputs, const Options& options, Diagnostics& diag);

}  // namespace graphgen::perf
