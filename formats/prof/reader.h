// GNU gprof's call-graph text (`gprof prog gmon.out`, docs/formats.md §6),
// with the BSD/Darwin and embedded variants gprof2dot reads.
//
// Grammar (lines; '\r\n' and '\n' alike; text saved as UTF-16 arrives here
// as UTF-8):
//   file    := preamble header+ (entry | blank)* '\f' rest
//   preamble:= any lines (the flat profile, explanations, "Call graph")
//   header  := GNU   'index' '%' ['time'] 'self' 'children' 'called' 'name'
//            | BSD   'called/total' ('parents' | 'children')
//            |       'index' '%time' 'self' 'descendents' 'called+self' 'name' 'index'
//   entry   := line* dashes          dashes := '-'+ alone on its line
//   function entry (its first line does not start with '['):
//              parent* primary child*
//   primary := '[' I ']' pct self children [called ['+' selfcalls]] name [' <cycle ' N '>'] ' [' I ']'
//   parent, child := blank+ [self] [children] count ['/' total] name [' <cycle ' N '>'] ' [' I ']'
//   cycle entry (first line starts with '['):
//              '[' I ']' pct self children [called] '<cycle ' N ' as a whole>' ' [' I ']' member*
// Lines `<spontaneous>` and `name (I)` (entries gprof left out) are skipped;
// lines after the last dashes and before '\f' (GNU's explanation) are not
// entries. self, children and pct are decimals (seconds, percent).
//
// Model, as gprof2dot reads it: one function per index, in the order the
// file names them; self time in seconds (a floating event, exact as
// printed); `called` + `selfcalls` is the function's call count; each child
// line is a call with its count, and the child's self + children seconds
// as its inclusive time (the arc's share gprof propagated). A child
// without an entry of its own is a function with no time. Totals are
// integrated along call-count ratios (registry: GraphTotals::kGprof);
// cycles are found from the calls, which is what gprof's `<cycle N>` tags
// say. The listed order is the entries' order.
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::prof {

/// True when the head is gprof output: it starts with its flat profile or
/// call-graph title, or holds a call-graph header line.
bool sniff(std::string_view head);

/// Reads one gprof call-graph text.
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::prof
