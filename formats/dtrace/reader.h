// DTrace's stack aggregations: the output of
//   dtrace -n 'profile-997 /pid == N/ { @[ustack()] = count(); }'
// (or stack() for kernel stacks), as gprof2dot reads it.
//
// Grammar (lines):
//   file   := (skip | stack)*
//   skip   := blank line | 'CPU' ... line and the line after it
//             (dtrace's `CPU ID FUNCTION:NAME` / `1 29684 :tick-60s` pair,
//             printed at the top and again before each printa)
//   stack  := frame+ count
//   frame  := blanks module '`' symbol ['+0x' hex]   (the last '`' splits)
//           | blanks '0x' hex                        (a frame dtrace could not name)
//   count  := blanks digits
// Frames are innermost first. A function is (symbol, module): its label
// shows the module's base name above the symbol, as gprof2dot's does.
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "common/two_parts.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::dtrace {

/// True when the head holds dtrace stacks: indented module`symbol frames
/// ended by a count, and nothing else but dtrace's header lines.
bool sniff(std::string_view head);

/// Reads one aggregation: a large one on two cores, cut after a count when the
/// options allow (formats::two_parts_above(); formats/common/two_parts.h).
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);
/// The same, in two parts whenever the file is larger than `split_above`
/// bytes (tests: both reads give the same profile).
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag,
                       std::size_t split_above);

}  // namespace graphgen::dtrace
