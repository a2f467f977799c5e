#include "graphgen/zlib_api.h"

namespace graphgen {

const ZlibApi* zlib_api(std::string& error) {
  return load_api<ZlibApi>(GRAPHGEN_ZLIB_SONAME, "inflates and deflates (.gz inputs, pprof and PNG outputs)",
                           "zlib (Debian: zlib1g)", error);
}

}  // namespace graphgen
