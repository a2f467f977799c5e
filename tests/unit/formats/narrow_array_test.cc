// formats::NarrowArray: values read back exactly as they were put, in the
// narrow type while every one fits and in the wide one from the first that
// does not (a double's fraction, -0.0, NaN, infinity or range; an index past
// 16 bits), with the bytes held as each width takes them.
#include "common/narrow_array.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace graphgen::formats::narrow_array_test {
namespace {

// The same bits (so -0.0 differs from 0.0 and NaN equals itself).
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(NarrowArray, DoublesReadBackBitForBitThroughEitherWidth) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double odd : {0.5, -0.0, nan, std::numeric_limits<double>::infinity(), 2147483648.0, -2147483649.0, 1e300}) {
    SCOPED_TRACE(odd);
    NarrowArray<std::int32_t, double> a;
    const std::vector<double> want = {0, 7, -3, 2147483647.0, -2147483648.0, odd, 12, -0.0 == odd ? 1.0 : -0.0};
    for (std::size_t i = 0; i < want.size(); ++i) {
      a.push_back(want[i]);
      // Narrow (4 bytes a value) until the odd one, then wide (8).
      EXPECT_EQ(a.bytes(), (i < 5 ? 4 : 8) * (i + 1)) << i;
    }
    ASSERT_EQ(a.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(same_bits(a[i], want[i])) << i << " " << a[i];
  }
}

TEST(NarrowArray, IndicesWidenPastSixteenBits) {
  NarrowArray<std::uint16_t, std::uint32_t> a;
  a.reserve(4);
  for (std::uint32_t v : {0u, 65535u}) a.push_back(v);
  EXPECT_EQ(a.bytes(), 4u);
  a.push_back(65536);
  a.push_back(4294967295u);
  EXPECT_EQ(a.bytes(), 16u);
  EXPECT_EQ(a[0], 0u);
  EXPECT_EQ(a[1], 65535u);
  EXPECT_EQ(a[2], 65536u);
  EXPECT_EQ(a[3], 4294967295u);
  EXPECT_FALSE(a.empty());
}

}  // namespace
}  // namespace graphgen::formats::narrow_array_test
