// ExactSum: the double nearest the exact sum, whichever way it is kept. Sums
// of values in its 128-bit window are counted in 2^-96 units; the rest go
// to Shewchuk's partials. Each case is checked against the partials alone
// (a first addend of 2^1000 puts the sum there, and its negation at the
// end takes it out again, exactly) and, where the answer is known, against
// that.
#include "graphgen/exact_sum.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace graphgen::exact_sum_test {
namespace {

double fixed_sum(const std::vector<double>& xs) {
  ExactSum s;
  for (double x : xs) s.add(x);
  return s.value();
}

// The same sum, every addend taken by the partials.
double partials_sum(const std::vector<double>& xs) {
  ExactSum s;
  s.add(0x1p1000);
  for (double x : xs) s.add(x);
  s.add(-0x1p1000);
  return s.value();
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

std::vector<double> seconds(std::mt19937_64& rng, std::size_t n) {
  // A profile's seconds: 1e-7 to 100, with their full 53 bits.
  std::uniform_real_distribution<double> exponent(-7, 2), mantissa(1, 10);
  std::vector<double> xs;
  for (std::size_t i = 0; i < n; ++i) xs.push_back(mantissa(rng) * std::pow(10.0, std::floor(exponent(rng))));
  return xs;
}

TEST(ExactSum, ProfileSecondsEqualThePartialsInAnyOrder) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<double> xs = seconds(rng, 1 + round * 7);
    if (round % 3 == 0)
      for (double& x : xs) x = -x * (rng() % 2 ? 1 : -1);  // either sign
    const double want = partials_sum(xs);
    EXPECT_TRUE(same_bits(fixed_sum(xs), want)) << "round " << round;
    std::shuffle(xs.begin(), xs.end(), rng);
    EXPECT_TRUE(same_bits(fixed_sum(xs), want)) << "round " << round << " shuffled";
  }
}

TEST(ExactSum, AddendsOutsideTheWindowMoveTheSumToThePartials) {
  std::mt19937_64 rng(11);
  // Below 2^-96, above 2^24, subnormal, and a running sum past 2^29.
  const std::vector<std::vector<double>> extras = {
      {1e-30, 3.3e-29}, {1e9, -1e9 + 0.5}, {std::numeric_limits<double>::denorm_min(), 5e-320}, {}};
  for (std::size_t k = 0; k < extras.size(); ++k) {
    std::vector<double> xs = seconds(rng, 300);
    xs.insert(xs.begin() + 150, extras[k].begin(), extras[k].end());
    if (k == 3)
      for (int i = 0; i < 100; ++i) xs.push_back(0x1p23 + 0x1p-40);
    EXPECT_TRUE(same_bits(fixed_sum(xs), partials_sum(xs))) << "case " << k;
  }
  EXPECT_EQ(fixed_sum(std::vector<double>(100, 0x1p23)), 100 * 0x1p23);
  EXPECT_EQ(fixed_sum({1.0, 1e-30, -1.0}), 1e-30);
  EXPECT_EQ(fixed_sum({0x1p-96, 0x1p-96, 0x1p-97}), 0x1p-95 + 0x1p-97);
}

TEST(ExactSum, RoundsOnceToNearestTiesToEven) {
  EXPECT_EQ(fixed_sum({1.0, 0x1p-53}), 1.0);                      // a tie: 1.0 is even
  EXPECT_EQ(fixed_sum({1.0 + 0x1p-52, 0x1p-53}), 1.0 + 0x1p-51);  // a tie: up to even
  EXPECT_EQ(fixed_sum({1.0, 0x1p-53, 0x1p-90}), 1.0 + 0x1p-52);   // past the tie
  EXPECT_EQ(fixed_sum({1.0, 0x1p-53, -0x1p-90}), 1.0);            // short of it
  // The smallest unit decides a tie.
  EXPECT_EQ(fixed_sum({1.0, 0x1p-53, 0x1p-96}), 1.0 + 0x1p-52);
  EXPECT_EQ(fixed_sum({1.0, 0x1p-53, -0x1p-96}), 1.0);
  EXPECT_EQ(fixed_sum({0x1p20, 0x1p-33, 0x1p-96}), 0x1p20 + 0x1p-32);
  EXPECT_EQ(fixed_sum({-0x1p20, -0x1p-33, -0x1p-96}), -0x1p20 - 0x1p-32);
  EXPECT_EQ(fixed_sum({0.1, 0.2, 0.3, -0.6}), partials_sum({0.1, 0.2, 0.3, -0.6}));
  EXPECT_EQ(fixed_sum({0.1, 0.2}), 0.30000000000000004);  // math.fsum([0.1, 0.2])
  std::vector<double> tenths(10, 0.1);
  EXPECT_EQ(fixed_sum(tenths), 1.0);  // math.fsum([0.1] * 10)
}

TEST(ExactSum, ZerosKeepTheirSignAsThePartialsDo) {
  ExactSum none;
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(same_bits(none.value(), 0.0));
  for (const std::vector<double>& xs : std::vector<std::vector<double>>{
           {-0.0}, {-0.0, -0.0}, {-0.0, 0.0}, {0.0, -0.0}, {1.0, -1.0}, {-1.0, 1.0}, {0.0}}) {
    ExactSum s;
    for (double x : xs) s.add(x);
    EXPECT_FALSE(s.empty());
    EXPECT_EQ(s.value(), 0.0);
    // Sent as parts and back, the sign stays.
    const ExactSum back = ExactSum::from_parts(s.partials(), false, 0.0);
    EXPECT_TRUE(same_bits(back.value(), s.value()));
  }
  EXPECT_TRUE(std::signbit(fixed_sum({-0.0})));
  EXPECT_TRUE(std::signbit(fixed_sum({-0.0, -0.0})));
  EXPECT_FALSE(std::signbit(fixed_sum({-0.0, 0.0})));
  EXPECT_FALSE(std::signbit(fixed_sum({1.0, -1.0})));
  EXPECT_FALSE(std::signbit(fixed_sum({-1.0, 1.0})));
}

TEST(ExactSum, SpecialsAreIeeeSums) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(fixed_sum({1.0, inf, 2.0}), inf);
  EXPECT_TRUE(std::isnan(fixed_sum({inf, 1.0, -inf})));
  EXPECT_EQ(fixed_sum({1e308, 1e308}), inf);
  ExactSum s(2.0), t(inf);
  s.add(t);
  EXPECT_EQ(s.value(), inf);
  EXPECT_FALSE(ExactSum::from_parts({}, true, inf).empty());
}

TEST(ExactSum, PartsAndGroupingsGiveTheSameBits) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 100; ++round) {
    std::vector<double> xs = seconds(rng, 50 + round);
    if (round % 4 == 1) xs.push_back(1e-40);  // one sum in the partials
    if (round % 4 == 2) xs.push_back(3e12);
    const double want = partials_sum(xs);
    // Split in a tree of shares, each sent as its parts, as graphgen-mpi does.
    const std::size_t cut = xs.size() / 3;
    ExactSum a, b;
    for (std::size_t i = 0; i < xs.size(); ++i) (i < cut ? a : b).add(xs[i]);
    ExactSum sent_a = ExactSum::from_parts(a.partials(), a.has_special(), a.special());
    EXPECT_TRUE(same_bits(sent_a.value(), a.value())) << "round " << round;
    ExactSum whole;
    whole.add(sent_a);
    whole.add(ExactSum::from_parts(b.partials(), b.has_special(), b.special()));
    EXPECT_TRUE(same_bits(whole.value(), want)) << "round " << round;
    ExactSum other_way = b;
    other_way.add(a);
    EXPECT_TRUE(same_bits(other_way.value(), want)) << "round " << round;
    // Parts are few, smallest first, and sum exactly to the whole.
    const std::vector<double> parts = whole.partials();
    EXPECT_TRUE(
        std::is_sorted(parts.begin(), parts.end(), [](double x, double y) { return std::fabs(x) < std::fabs(y); }));
    EXPECT_TRUE(same_bits(fixed_sum(parts), want));
  }
}

}  // namespace
}  // namespace graphgen::exact_sum_test
