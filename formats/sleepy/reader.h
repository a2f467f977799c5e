// Very Sleepy's saved profiles (.sleepy): zip archives read with libzip.
//
// Members (names compared without case: Very Sleepy 0.82 writes
// Symbols.txt, later versions symbols.txt), text lines, '\r\n' or '\n':
//   Symbols.txt    := (id blanks '"' module '"' blanks '"' procname '"' blanks
//                      '"' sourcefile '"' blanks line)*      other lines are skipped
//   Callstacks.txt := (seconds (blanks id)+)*                innermost first
// Stats.txt, IPCounts.txt and the version marker are not needed.
//
// Model, as gprof2dot reads it: a function is (module, procname), whatever
// its symbol ids (several ids may name one function); each stack adds its
// seconds to its innermost function and to each call along it. The event
// is time in seconds (floating).
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::sleepy {

/// True for a zip archive whose first members' names are Very Sleepy's.
bool sniff(std::string_view head);
/// True for any zip archive (a weaker hint).
bool sniff_zip(std::string_view head);

/// Reads one .sleepy archive.
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::sleepy
