// VTune Amplifier XE's gprof-like call graph export ("gprof-cc" report:
// `amplxe-cl -report gprof-cc`), which gprof2dot reads as `axe`.
//
// Grammar (lines, '\r\n' or '\n'):
//   file    := header* entry* footer rest
//   header  := 'Index ' ...  |  '-----'+ ' ' ...    (column titles, rulers)
//   entry   := line+ separator       separator := blanks only (not empty)
//   footer  := 'Index' blanks 'Function' [blanks]
//   function entry:  parent* primary child*
//   primary := '[' I ']' pct self children name [' <cycle ' N '>'] blanks '[' I ']' [blanks]
//   parent, child := blanks [self] [children] name [' <cycle ' N '>'] [blanks '[' I ']'] [blanks]
//   cycle entry (a line holds 'as a whole'): parent* '[' I ']' ... '<cycle ' N ' as a whole>' ... member*
// pct is the function's inclusive share in percent, self and children
// seconds (children may be negative in cycle lines). `<spontaneous>`
// entries, parents and children name no function and are skipped.
//
// Model, as gprof2dot reads it: one function per index, self seconds (a
// floating event) and self + children as its inclusive time; VTune's share
// (pct / 100) is Profile::reported_share, which graphs show as the total
// (registry: GraphTotals::kShares). A child line is a call whose inclusive
// time is its self + children. VTune prints no call counts, so the shares
// of a callee's total among its callers are estimates: in proportion to
// the callers' own shares, as gprof2dot estimates them.
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::axe {

/// True when the head starts with VTune's `Index  % CPU Time:Total ...`
/// title line and its ruler.
bool sniff(std::string_view head);

/// Reads one export.
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::axe
