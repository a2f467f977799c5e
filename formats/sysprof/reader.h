// sysprof 1.x saved profiles (XML), read with expat, as gprof2dot reads
// them.
//
//   <profile>
//     <size>N</size> <call_tree>N</call_tree> ...          other values: not needed
//     <objects> <object id="I"> <name>"NAME"</name> <total>N</total> <self>N</self> </object> ... </objects>
//     <nodes>   <node id="I"> <object>I</object> <parent>I</parent> <self>N</self> ... </node> ... </nodes>
//   </profile>
// A value in double quotes is a string without them. A node is one place in
// the call tree (parent 0: a root); its object is the function there.
//
// Model, as gprof2dot reads it: only objects with self samples become
// functions (sysprof's pseudo-objects "[everything]", process names and
// functions that were only ever callers have none); a node with self
// samples adds them to a call from the nearest ancestor whose object has
// self samples to its own object (none: no call). Node walks are memoised,
// so deep trees stay linear.
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::sysprof {

/// True when the head is XML whose root element is <profile> followed by
/// sysprof's elements.
bool sniff(std::string_view head);

/// Reads one sysprof file.
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::sysprof
