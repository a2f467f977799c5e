// Valgrind callgrind profiles (docs/formats.md §4; Valgrind's "Callgrind
// Format Specification").
//
// Grammar, one item per line:
//   header   := key ':' value            (version creator pid thread part cmd desc
//                                          positions event events summary totals)
//   spec     := ('ob'|'fl'|'fi'|'fe'|'fn'|'cob'|'cfi'|'cfl'|'cfn'|'jfi'|'jfn') '=' name
//   name     := '(' id ')' [text] | text  ids shared per kind: objects, files, functions
//   call     := 'calls=' count target     followed by a cost line: call site + inclusive cost
//   jump     := ('jump=' count | 'jcnd=' followed '/' executed) target, then a position line
//   cost     := subpos{positions} cost{<= events}
//   subpos   := decimal | '0x' hex | '+' n | '-' n | '*'   (relative to the previous cost line)
// Several parts of one file accumulate into one profile. A function
// is (name, object, file) exactly as the file names it, as KCacheGrind and
// callgrind_annotate key them; graph views merge these per (name, object)
// (merge_functions), where gprof2dot's name-only identity would also merge
// distinct functions such as malloc of ld.so and of libc.
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::callgrind {

/// True when the head of a file looks like callgrind (KCacheGrind's rule:
/// the magic line, or `events:`/`creator:` in the first 2047 bytes).
bool sniff(std::string_view head);

/// Reads one callgrind file (all its parts): every event, self cost per
/// function, calls with counts and inclusive costs, and with keep_positions
/// the self cost per position, every call site and jump, and the header
/// lines (creator, pid, cmd, part, thread, desc). `merge_by_name` scopes cob=
/// as gprof2dot does (until the next self cost line), which decides the
/// module of gprof2dot's name-merged nodes. A name id used without a
/// definition reads as an empty name, as gprof2dot reads it (one warning); a
/// last line cut short without a newline is ignored with a warning.
///
/// A file larger than kSplitAbove read for a graph (without positions) is
/// read on two cores, the second from the first `fn=` line past the middle
/// (see read_from()).
inline constexpr std::size_t kSplitAbove = std::size_t{4} << 20;
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

/// read() with the second core's half starting at the first `fn=` line at
/// or after byte `from` (npos: one reader). That half is read with the
/// names and positions it inherits unknown, resolved when the first half
/// is read; when the state it guessed is not the one the first half ends
/// in (or it meets a line it cannot read alone), the first reader reads
/// the rest itself. The profile, warnings and errors are the same either
/// way; `split_used` tells which happened (for tests).
Expected<Profile> read_from(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag,
                            std::size_t from, bool* split_used = nullptr);

}  // namespace graphgen::callgrind
