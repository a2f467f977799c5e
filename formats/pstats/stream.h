// The fast path of the pstats reader: one streaming pass over the marshal
// bytes straight into the profile, without a decoded object tree, for files
// shaped as cProfile and pstats write them (references to strings, numbers
// and key tuples; no code objects, no repeated keys).
//
// It never reports an error: on anything else (a code object, a reference to
// an unusual object, a malformed byte) it gives up and the caller reads the
// file with the general decoder (marshal.h), which handles every case and
// owns every error message. When it succeeds the profile is exactly the one
// the general path builds (tests compare them on every corpus file).
#pragma once

#include <optional>
#include <string_view>

#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::pstats::detail {

/// The profile of a pstats file, or nothing when the general path must read it.
/// `trailing` gets the number of bytes after the dict. Given the file the
/// bytes are, it gives back the pages read as it goes (a mapping's pages
/// come back from the page cache if the general path reads them again).
/// `keep_call_self`: as StatsBuilder's.
std::optional<Profile> read_fast(std::string_view bytes, std::size_t& trailing, const InputFile* file = nullptr,
                                 bool keep_call_self = true);

}  // namespace graphgen::pstats::detail
