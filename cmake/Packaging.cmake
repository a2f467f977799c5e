# Debian packages with CPack (tools/dev.sh package: cpack -G DEB in build/):
#   graphgen_<version>_<arch>.deb      graphgen, graphgen(1), graphgen-run(1), bash and zsh
#                                      completion, the Python package in dist-packages, the docs
#   graphgen-mpi_<version>_<arch>.deb  graphgen-mpi and its page, so that graphgen does not
#                                      pull Open MPI
# Depends: computed by dpkg-shlibdeps (dpkg-dev) from the binaries' libraries. Each package
# has the copyright file (DEP-5, Apache-2.0) and changelog Debian requires.
# tools/package-check.sh installs them in a minimal Debian and checks them.

include(GNUInstallDirs)

# Debian's files for each package: copyright and a gzipped changelog (fixed
# dates: the bytes do not depend on the day of the build).
set(GRAPHGEN_DEB_MAINTAINER "graphgen developers <developers@graphgen.org>")
foreach(package graphgen graphgen-mpi)
  set(doc ${PROJECT_BINARY_DIR}/debian-doc/${package})
  file(MAKE_DIRECTORY ${doc})
  file(WRITE ${doc}/copyright
       "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
       "Upstream-Name: graphgen\n\n"
       "Files: *\n"
       "Copyright: 2026 the graphgen developers\n"
       "License: Apache-2.0\n\n"
       "License: Apache-2.0\n"
       " Licensed under the Apache License, Version 2.0 (the \"License\"); you may not use\n"
       " this software except in compliance with the License.\n"
       " .\n"
       " On Debian systems, the full text of the Apache License, Version 2.0 can be found\n"
       " in /usr/share/common-licenses/Apache-2.0.\n")
  file(WRITE ${doc}/changelog.Debian
       "${package} (${PROJECT_VERSION}-1) unstable; urgency=medium\n\n"
       "  * Packaged from the graphgen sources with CPack (cmake/Packaging.cmake).\n\n"
       " -- ${GRAPHGEN_DEB_MAINTAINER}  Thu, 26 Nov 2026 00:00:00 +0000\n")
  add_custom_command(
    OUTPUT ${doc}/changelog.Debian.gz
    COMMAND gzip -9nf -k ${doc}/changelog.Debian
    DEPENDS ${doc}/changelog.Debian
    VERBATIM)
  list(APPEND GRAPHGEN_DEB_DOCS ${doc}/changelog.Debian.gz)
endforeach()
add_custom_target(graphgen_debian_doc ALL DEPENDS ${GRAPHGEN_DEB_DOCS})
install(FILES ${PROJECT_BINARY_DIR}/debian-doc/graphgen/copyright
              ${PROJECT_BINARY_DIR}/debian-doc/graphgen/changelog.Debian.gz ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT main)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT main
        FILES_MATCHING PATTERN "*.md")
if(TARGET graphgen-mpi)
  install(FILES ${PROJECT_BINARY_DIR}/debian-doc/graphgen-mpi/copyright
                ${PROJECT_BINARY_DIR}/debian-doc/graphgen-mpi/changelog.Debian.gz
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/graphgen-mpi COMPONENT mpi)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME graphgen)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "graphgen developers")
set(CPACK_PACKAGE_CONTACT "${GRAPHGEN_DEB_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL main)
if(TARGET graphgen-mpi)
  list(APPEND CPACK_COMPONENTS_ALL mpi)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)  # (not a native package: Debian's changelog.Debian is the one)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The libraries loaded the first time a run needs them (libarchive,
# Graphviz, zlib, bzip2, xz, zstd, expat: lib/include/graphgen/shared_lib.h):
# dpkg-shlibdeps cannot see them in the binary, so the package names the
# Debian package that owns each soname's file (libgvc.so.6: libgvc6;
# libz.so.1: zlib1g).
set(GRAPHGEN_LOADED_PACKAGES "")
find_program(GRAPHGEN_DPKG_QUERY dpkg-query)
foreach(var ${GRAPHGEN_LOADED_SONAMES})
  if(GRAPHGEN_DPKG_QUERY AND ${var}_FILE)
    # (Merged /usr: dpkg knows some libraries by their /lib path.)
    string(REGEX REPLACE "^/usr/lib/" "/lib/" unmerged ${${var}_FILE})
    set(package "")
    foreach(path ${${var}_FILE} ${unmerged})
      if(NOT package)
        execute_process(COMMAND ${GRAPHGEN_DPKG_QUERY} -S ${path} OUTPUT_VARIABLE owner ERROR_QUIET)
        string(REGEX MATCH "^[^:,]+" package "${owner}")
      endif()
    endforeach()
    if(package AND NOT package IN_LIST GRAPHGEN_LOADED_PACKAGES)
      list(APPEND GRAPHGEN_LOADED_PACKAGES ${package})
    endif()
  endif()
endforeach()
string(REPLACE ";" ", " CPACK_DEBIAN_MAIN_PACKAGE_DEPENDS "${GRAPHGEN_LOADED_PACKAGES}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_MAIN_PACKAGE_NAME graphgen)
set(CPACK_DEBIAN_MAIN_PACKAGE_RECOMMENDS "python3")
string(CONCAT CPACK_COMPONENT_MAIN_DESCRIPTION
       "call graphs, flame graphs and reports of profiles\n"
       "graphgen reads the profiles people already have (Python's cProfile and\n"
       "tracemalloc, valgrind's callgrind, perf script, gprof, pprof, TAU, Score-P,\n"
       "speedscope ...), builds one call graph and writes what they want to look at:\n"
       "Graphviz dot as gprof2dot writes it, PNG/SVG/PDF rendered in-process,\n"
       "callgrind for KCacheGrind, pstats, flame graphs, an HTML report and per-rank\n"
       "tables of MPI runs. It also profiles Python programs (graphgen run) and has a\n"
       "Python package for every CPython from 3.8.")
set(CPACK_DEBIAN_MPI_PACKAGE_NAME graphgen-mpi)
string(CONCAT CPACK_COMPONENT_MPI_DESCRIPTION
       "merge per-rank profiles on MPI, as graphgen merges them\n"
       "graphgen-mpi runs under mpirun: each process reads and merges a share of the\n"
       "rank files, the shares are reduced in a binomial tree, and process 0 writes\n"
       "what graphgen would write from all the inputs, byte for byte.")
include(CPack)
