// A share of merged inputs (pipeline.h's MergedShare) as bytes and back:
// graphgen-mpi's message between processes. The profile in graphgen's wire
// encoding (graphgen/wire.h), the exact partials of its floating costs, the
// inputs it skipped and its per-rank statistics, so the receiver's combine
// is exact.
#pragma once

#include <string>
#include <string_view>

#include "graphgen/error.h"
#include "pipeline.h"

namespace graphgen::pipeline {

std::string encode_share(const MergedShare& share);

/// The share encode_share() wrote; `request` and `format` are the ones the
/// sender read with (the per-rank statistics need the inputs' names);
/// `sender` names it in errors.
Expected<MergedShare> decode_share(std::string_view bytes, const Request& request, const InputFormat& format,
                                   std::string_view sender);

}  // namespace graphgen::pipeline
