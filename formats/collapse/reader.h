// Collapsed ("folded") stacks, as written by FlameGraph's stackcollapse
// scripts, py-spy and others (docs/formats.md §5.6).
//
// Grammar:  line := frame (';' frame)* blank+ count '\n'    root first, leaf last
//           frame := text | name ' (' file ':' line ')'    the second form (py-spy)
//                                                          is the function file:name
// The count follows the last run of blanks and must be an integer.
#pragma once

#include <string_view>
#include <vector>

#include "common/read_options.h"
#include "common/two_parts.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::collapse {

/// True when the head's lines all look like `frames count`; `semicolons`
/// says whether half of them hold ';' (deeper than one frame), without
/// which the lines could be many a text.
bool sniff(std::string_view head, bool* semicolons = nullptr);

/// Reads one collapsed-stack file: a large one on two cores when the
/// options allow (formats::two_parts_above(); formats/common/two_parts.h).
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);
/// The same, in two parts whenever the file is larger than `split_above`
/// bytes (tests: both reads give the same profile).
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag,
                       std::size_t split_above);

}  // namespace graphgen::collapse
