// Libraries loaded on first use: what a run says when one is missing, or
// lacks a function the build compiled against.
#include "graphgen/shared_lib.h"

#include <gtest/gtest.h>

#include <cstring>

namespace graphgen::shared_lib_test {
namespace {

TEST(SharedLibrary, AMissingLibrarySaysWhatItDoesAndWhatToInstall) {
  SharedLibrary lib("libgraphgen-no-such-library.so.9", "draws nothing", "nothing at all");
  int (*f)(int) = nullptr;
  lib.resolve("abs", f);
  EXPECT_EQ(f, nullptr);
  EXPECT_TRUE(lib.error().starts_with("cannot load libgraphgen-no-such-library.so.9 (")) << lib.error();
  EXPECT_NE(lib.error().find("No such file"), std::string::npos) << lib.error();
  EXPECT_TRUE(lib.error().ends_with("), which draws nothing: install nothing at all")) << lib.error();
}

TEST(SharedLibrary, FunctionsAreFoundAndTheFirstMissingOneIsNamed) {
  SharedLibrary lib("libc.so.6", "is the C library", "libc6");
  decltype(&std::strlen) length = nullptr;
  lib.resolve("strlen", length);
  ASSERT_NE(length, nullptr);
  EXPECT_EQ(length("graphgen"), 8u);
  EXPECT_EQ(lib.error(), "");
  void (*missing)() = nullptr;
  lib.resolve("graphgen_no_such_function", missing);
  lib.resolve("graphgen_nor_this_one", missing);
  EXPECT_EQ(missing, nullptr);
  EXPECT_EQ(lib.error(), "libc.so.6 has no graphgen_no_such_function");
}

}  // namespace
}  // namespace graphgen::shared_lib_test
