// pprof's profile.proto (github.com/google/pprof proto/profile.proto; Go's
// runtime/pprof, gperftools through `pprof -proto`, perf_to_profile, many
// language agents), gzipped or not (the input layer undoes gzip before).
//
// Grammar (protobuf wire format; field numbers of message Profile):
//   1 sample_type  ValueType {1 type, 2 unit: string indices}   one per value
//   2 sample       Sample {1 location_id (leaf first), 2 value, 3 label}
//   3 mapping      Mapping {1 id, 5 filename, ...}
//   4 location     Location {1 id, 2 mapping_id, 3 address, 4 line {1 function_id, 2 line}}
//                  (several lines: inlined frames, the innermost first)
//   5 function     Function {1 id, 2 name, 3 system_name, 4 filename, 5 start_line}
//   6 string_table strings, the first one empty
//   7 drop_frames, 8 keep_frames, 9 time_nanos, 10 duration_nanos,
//   11 period_type, 12 period, 13 comment, 14 default_sample_type
// Top-level fields are walked with libprotobuf's CodedInputStream, so an
// error names the offset of the element at fault; each element is parsed
// with the classes protoc generates from Debian's copy of profile.proto.
//
// The model: one event per sample type (the default sample type first,
// else the last one, as pprof takes it); a function per (name, file,
// object) with its start line, the object being the mapping's file; a
// location without lines is the function named by its address; each
// sample a stack (StackBuilder): exact flame graphs, call stacks, totals.
// A sample's string label `process` (graphgen's own pprof output) puts its
// stack under that process; other labels are counted and left out.
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::pprof {

/// The head walks as top-level fields of a Profile, of the right wire
/// types, the first a sample type or a sample.
bool sniff(std::string_view head);

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::pprof
