// CSV exported from Windows Performance Toolkit (xperf / WPA) sampled
// stacks, as gprof2dot reads it (`-f xperf`), with real CSV quoting.
//
// Grammar (lines):
//   file   := header row*
//   header := field (',' field)*     names of the columns; these must be
//             there: Process Name, Module, Function, Weight, Count, Stack
//   row    := field (',' field)*     at least as many fields as the header
//   field  := blanks* (text | '"' (char | '""')* '"')
//   Stack  := '?' | '[Root]' ('/' module '!' function)*   outermost first
// Blank lines are skipped; rows of the Idle process are not samples.
//
// Model: a function is (process, module, function); each row adds Weight x
// Count to its function and Count to each call of its stack (the row's
// function is appended when the stack does not end in it), as gprof2dot
// does. Weights are doubles, so the event is floating.
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::xperf {

/// True when the head's first line is a CSV header naming the columns
/// xperf stack exports have (Process Name, Module, Function, Stack...).
bool sniff(std::string_view head);

/// Reads one CSV export.
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::xperf
