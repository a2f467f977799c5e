#include "common/xml.h"

namespace graphgen::formats {

const ExpatApi* expat_api(std::string& error) {
  return load_api<ExpatApi>(GRAPHGEN_EXPAT_SONAME, "reads XML (sysprof files, CUBE4's anchor.xml)",
                            "expat (Debian: libexpat1)", error);
}

}  // namespace graphgen::formats
