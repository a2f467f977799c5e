// `python -X importtime` logs: what CPython (3.7 and later) writes to
// stderr as it imports, one line per module when its import ends, after
// the modules it imported:
//
//   import time: self [us] | cumulative | imported package
//   import time:       130 |        130 |   _io
//   import time:       257 |        676 | _frozen_importlib_external
//
// The name is indented two spaces per level of nesting: a module's
// importer is the next line one level out (Python/import.c,
// import_find_and_load). Lines that are not import times (the program's
// own stderr) are skipped.
//
// The model: a stack per line (its importers, outermost first) in one
// event, time in microseconds. A module's inclusive time is the log's
// cumulative time exactly; its own time is that less its imports'
// cumulative times, which can differ from the log's self column by a few
// microseconds (each is rounded up on its own). An import the log never
// finishes (the program ended inside it) leaves its imports as roots; a
// warning says how many.
#pragma once

#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::importtime {

/// The header line, or a first line of an import time.
bool sniff(std::string_view head);

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag);

}  // namespace graphgen::importtime
