// Exactly rounded sums of doubles: the total of a set of values is the
// double nearest their exact sum, whatever order or grouping they were
// added in (Shewchuk's non-overlapping partials, with the final rounding of
// Python's math.fsum). Merging uses it for floating costs (pstats seconds),
// so one process merging 1000 files in order and sixteen MPI processes
// merging shares of them in a tree give the same bits.
//
// Most sums are of values whose bits all lie between 2^-96 and 2^120 (a
// profile's seconds): those are added as 128-bit integers of 2^-96 units,
// exactly and without a loop, and rounded once by the integer's own
// conversion. The first addend outside that window (or a running sum that
// reaches 2^125 units, 2^29) moves the sum to the partials, unchanged.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace graphgen {

class ExactSum {
 public:
  ExactSum() = default;
  explicit ExactSum(double x) { add(x); }

  /// Adds x exactly.
  void add(double x) {
    if (fixed_ && add_fixed(x)) return;
    add_partial(x);
  }

  /// Adds another sum exactly (its partials, not its rounded value).
  void add(const ExactSum& other) {
    if (other.fixed_) {
      if (other.added_ && !(fixed_ && add_units(other.acc(), other.negative_zeros_only_)))
        for (double p : other.partials()) add(p);
    } else {
      const double* p = other.data();
      for (std::size_t k = 0, n = other.size(); k < n; ++k) add(p[k]);
    }
    if (other.has_special_) {
      special_ += other.special_;
      has_special_ = true;
    }
  }

  /// The double nearest the exact sum (ties to even).
  double value() const {
    if (has_special_) return special_;
    if (fixed_) {
      const i128 a = acc();
      if (a == 0) return added_ && negative_zeros_only_ ? -0.0 : 0.0;
      // The conversion rounds to nearest, ties to even (IEEE, as libgcc's
      // and compiler-rt's soft-float do); scaling by 2^-96 is exact here.
      return static_cast<double>(a) * 0x1p-96;
    }
    const double* p = data();
    std::size_t n = size();
    if (n == 0) return 0.0;
    double hi = p[--n], lo = 0.0;
    while (n > 0) {
      double x = hi, y = p[--n];
      hi = x + y;
      double yr = hi - x;
      lo = y - yr;
      if (lo != 0.0) break;
    }
    // Half-way cases: the partials below say which way to round.
    if (n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0))) {
      double y = lo * 2.0, x = hi + y;
      if (y == x - hi) hi = x;
    }
    return hi;
  }

  bool empty() const { return (fixed_ ? !added_ : size() == 0) && !has_special_; }
  /// The exact state, for sending it elsewhere (graphgen-mpi): doubles
  /// whose exact sum is the sum's.
  std::vector<double> partials() const {
    if (!fixed_) return std::vector<double>(data(), data() + size());
    std::vector<double> out;
    i128 rest = acc();
    if (rest == 0) {
      if (added_) out.push_back(negative_zeros_only_ ? -0.0 : 0.0);
      return out;
    }
    // Three doubles hold 128 bits: each the rest's nearest, smallest first.
    double parts[3];
    int n = 0;
    while (rest != 0 && n < 3) {
      const double d = static_cast<double>(rest);
      parts[n++] = d;
      rest -= static_cast<i128>(d);
    }
    for (int k = n - 1; k >= 0; --k) out.push_back(parts[k] * 0x1p-96);
    return out;
  }
  bool has_special() const { return has_special_; }
  double special() const { return special_; }
  static ExactSum from_parts(const std::vector<double>& partials, bool has_special, double special) {
    ExactSum s;
    for (double p : partials) s.add(p);
    s.has_special_ = s.has_special_ || has_special;
    if (has_special) s.special_ += special;
    return s;
  }

 private:
  __extension__ typedef __int128 i128;
  // The fixed sum, a count of 2^-96 units, is kept in inline_'s first 16
  // bytes (unused until the partials take over): a cell stays 64 bytes.
  // Its magnitude stays below 2^125 and an addend's below 2^120: no sum
  // overflows.
  static constexpr int kUnitExponent = -96;
  static constexpr int kTopBit = 120;  // an addend's units are below 2^120

  // Adds x to the fixed sum when its bits fit the window; false (and nothing
  // changed) when they do not.
  bool add_fixed(double x) {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
    const int biased = static_cast<int>(bits >> 52 & 0x7FF);
    std::uint64_t mant = bits & ((std::uint64_t{1} << 52) - 1);
    if (biased == 0 && mant == 0) {  // +0 or -0
      added_ = true;
      negative_zeros_only_ = negative_zeros_only_ && (bits >> 63) != 0;
      return true;
    }
    if (biased == 0 || biased == 0x7FF) return false;  // subnormal, inf, nan
    mant |= std::uint64_t{1} << 52;
    int shift = biased - 1075 - kUnitExponent;  // x = mant * 2^(shift - 96)
    if (shift < 0) {
      if (std::countr_zero(mant) < -shift) return false;  // bits below 2^-96
      mant >>= -shift;
      shift = 0;
    }
    if (shift + 53 > kTopBit) return false;
    const i128 units = static_cast<i128>(mant) << shift;
    return add_units((bits >> 63) ? -units : units, false);
  }
  i128 acc() const {
    i128 a;
    std::memcpy(&a, inline_, sizeof a);
    return a;
  }
  bool add_units(i128 units, bool negative_zeros_only) {
    const i128 sum = acc() + units;  // both below 2^125: no overflow
    constexpr i128 kLimit = static_cast<i128>(1) << 125;
    if (sum >= kLimit || sum <= -kLimit) return false;
    std::memcpy(inline_, &sum, sizeof sum);
    added_ = true;
    negative_zeros_only_ = negative_zeros_only_ && negative_zeros_only && units == 0;
    return true;
  }
  // Moves the fixed sum to the partials, for an addend it cannot hold.
  void leave_fixed() {
    const std::vector<double> parts = partials();
    fixed_ = false;
    n_ = 0;
    for (double p : parts) add_partial(p);
  }

  void add_partial(double x) {
    if (fixed_) leave_fixed();
    if (!std::isfinite(x)) {
      special_ += x;  // inf and nan do not round: IEEE addition says it all
      has_special_ = true;
      return;
    }
    double* p = data();
    const std::size_t n = size();
    std::size_t i = 0;
    for (std::size_t k = 0; k < n; ++k) {
      double y = p[k];
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      double hi = x + y;
      double lo = y - (hi - x);
      if (lo != 0.0) p[i++] = lo;
      x = hi;
    }
    if (!std::isfinite(x)) {  // the running sum overflowed
      resize(i);
      special_ += x;
      has_special_ = true;
      return;
    }
    resize(i);
    push(x);
  }

  // Partials, non-overlapping, in increasing magnitude: a few in place (the
  // common case, no allocation), more on the heap.
  static constexpr std::size_t kInline = 3;
  const double* data() const { return on_heap_ ? heap_.data() : inline_; }
  double* data() { return on_heap_ ? heap_.data() : inline_; }
  std::size_t size() const { return on_heap_ ? heap_.size() : n_; }
  void resize(std::size_t n) {
    if (on_heap_)
      heap_.resize(n);
    else
      n_ = static_cast<std::uint8_t>(n);
  }
  void push(double x) {
    if (!on_heap_ && n_ < kInline) {
      inline_[n_++] = x;
      return;
    }
    if (!on_heap_) {
      heap_.assign(inline_, inline_ + n_);
      on_heap_ = true;
    }
    heap_.push_back(x);
  }

  double inline_[kInline] = {0, 0, 0};  // (while fixed_: the sum's 16 bytes)
  std::uint8_t n_ = 0;
  bool on_heap_ = false;
  bool has_special_ = false;
  bool fixed_ = true;                // the sum is acc() (else the partials)
  bool added_ = false;               // fixed: something was added
  bool negative_zeros_only_ = true;  // fixed: every addend was -0.0
  double special_ = 0.0;
  std::vector<double> heap_;
};

}  // namespace graphgen
