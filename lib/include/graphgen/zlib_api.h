// zlib, loaded the first time something is inflated or deflated (a .gz
// input, a pprof file written, a PNG encoded), not at every start
// (shared_lib.h).
#pragma once

#include <zlib.h>

#include <string>

#include "graphgen/shared_lib.h"

namespace graphgen {

// The zlib functions graphgen calls: (member, zlib's name).
#define GRAPHGEN_ZLIB_FUNCTIONS(X)                \
  X(inflate_init2, inflateInit2_)                 \
  X(inflate, inflate)                             \
  X(inflate_end, inflateEnd)                      \
  X(deflate_init2, deflateInit2_)                 \
  X(deflate, deflate)                             \
  X(deflate_end, deflateEnd)                      \
  X(deflate_set_dictionary, deflateSetDictionary) \
  X(deflate_bound, deflateBound)                  \
  X(crc32, crc32)                                 \
  X(adler32, adler32)                             \
  X(adler32_combine, adler32_combine)

GRAPHGEN_LIBRARY_API(ZlibApi, GRAPHGEN_ZLIB_FUNCTIONS);

/// zlib's functions, loaded once; null, with why in `error`, when they
/// cannot be.
const ZlibApi* zlib_api(std::string& error);

/// inflateInit2() and deflateInit2(), zlib.h's macros, through `z`.
inline int inflate_init(const ZlibApi& z, z_stream* s, int window_bits) {
  return z.inflate_init2(s, window_bits, ZLIB_VERSION, static_cast<int>(sizeof(z_stream)));
}
inline int deflate_init(const ZlibApi& z, z_stream* s, int level, int window_bits, int mem_level, int strategy) {
  return z.deflate_init2(s, level, Z_DEFLATED, window_bits, mem_level, strategy, ZLIB_VERSION,
                         static_cast<int>(sizeof(z_stream)));
}

}  // namespace graphgen
