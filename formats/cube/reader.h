// Score-P's CUBE4 profiles (`.cubex`, docs/formats.md "CUBE4"), from the
// format's description in pycubexr (docs/cube_file_format.md) and CubeLib's
// writer, checked against pycubexr's reading of real Score-P files.
//
// A .cubex is a tar (read with libarchive; gzip around it is undone
// before) holding:
//   anchor.xml   metrics (<metric id type=INCLUSIVE|EXCLUSIVE> with
//                <uniq_name>, <dtype>, <uom>), regions (<region id mod
//                begin> with <name>), the call tree (nested <cnode id
//                calleeId>) and the system tree (<systemtreenode> >
//                <locationgroup> (a process: <rank>) > <location> (a
//                thread: <rank>)), read with expat;
//   N.index      "CUBEX.INDEX", i32 1 (the byte order), u16 version, u8 kind
//                (1 sparse: u32 n + n u32 tree positions; 3 dense: every
//                cnode), for metric id N;
//   N.data       "CUBEX.DATA", then per indexed position one row of the
//                metric's values, one per location in location-id order.
// Positions number the call tree in preorder for exclusive metrics and,
// for inclusive ones, CubeLib's order: each node's children numbered
// together when it is reached in preorder.
//
// The model: a function per region; per event (the additive metrics:
// time first, then the others; `visits` gives the call counts) the
// exclusive and inclusive values of every call-tree node, as pycubexr
// converts them (exclusive = stored - the children's inclusive values, in
// child order; unsigned types stop at 0). The call tree is the profile's
// callsite tree (flame graphs are exact); a parent-child pair of regions
// is a call edge; a region's total counts each node whose region is not
// already on its path. Every location is a Location (rank: its process's
// rank; thread: its own).
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::cube {

/// A tar whose first member is anchor.xml, remapping.spec or a metric's
/// N.index / N.data.
bool sniff(std::string_view head);

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::cube
